"""An offline stand-in for @rules_java//java:defs.bzl, for Bazel 4 (Debian 12's bazel-bootstrap)
without network access: @bazel_tools//tools/jdk, which Bazel parses when it resolves toolchains
for any target, loads these rules from @rules_java, which Bazel would otherwise download. They
are Bazel's native rules, unchanged.

    local_repository(name = "rules_java", path = "<qdc>/bazel/offline/rules_java")
"""

def java_binary(**kwargs):
    native.java_binary(**kwargs)

def java_import(**kwargs):
    native.java_import(**kwargs)

def java_library(**kwargs):
    native.java_library(**kwargs)

def java_runtime(**kwargs):
    native.java_runtime(**kwargs)

def java_toolchain(**kwargs):
    native.java_toolchain(**kwargs)
