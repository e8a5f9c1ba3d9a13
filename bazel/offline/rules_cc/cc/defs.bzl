"""An offline stand-in for @rules_cc//cc:defs.bzl, for Bazel 4 (Debian 12's bazel-bootstrap)
without network access: Bazel's own C++ configuration (@local_config_cc, @bazel_tools//tools/cpp)
loads these rules from @rules_cc, which Bazel would otherwise download. They are Bazel's
native rules, unchanged. With network access, leave this out and Bazel fetches rules_cc.

    local_repository(name = "rules_cc", path = "<qdc>/bazel/offline/rules_cc")
"""

def cc_binary(**kwargs):
    native.cc_binary(**kwargs)

def cc_import(**kwargs):
    native.cc_import(**kwargs)

def cc_test(**kwargs):
    native.cc_test(**kwargs)

def cc_library(**kwargs):
    native.cc_library(**kwargs)

def cc_toolchain(**kwargs):
    native.cc_toolchain(**kwargs)

def cc_toolchain_suite(**kwargs):
    native.cc_toolchain_suite(**kwargs)
