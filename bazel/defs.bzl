"""Bazel rules for qdc (man qdc(1), BAZEL): qdc_kernels and qdc_library.

    load("@qdc_rules//bazel:defs.bzl", "qdc_kernels", "qdc_library")

    qdc_library(                 # an x86 library with headers, as CMake's qdc_add_library
        name = "histogram",
        srcs = ["histogram.qd"],
        targets = ["x86_64", "sm_80", "vulkan1.2"],
        embed = True,            # the GPU outputs as C arrays in the library too
    )
    qdc_kernels(                 # GPU (or any) natural outputs only
        name = "gpu",
        srcs = ["histogram.qd"],
        targets = ["sm_80", "gfx942"],
    )

Every action declares every input it reads: the .qd source, the sources of `deps` (modules it
imports, from other qdc_kernels / qdc_library targets or plain files), the qdc executable, and
the capability files of its family (the family's file and those it extends, from @qdc's
capdb_<family>), passed with --capdb-dir. An edit to sm_80.yaml reruns only the actions of
sm_80 and the families that extend it; the actions are hermetic, so a disk or remote cache
serves them.
"""

load("@qdc//:families.bzl", "QDC_FAMILIES")

QdcInfo = provider(
    doc = "The .qd sources of a target and of its deps (what an import may read).",
    fields = {"srcs": "depset of .qd files"},
)

def _family(fam):
    if fam not in QDC_FAMILIES:
        fail("unknown qdc family '%s'; known: %s (aliases are not accepted here: name the family)" %
             (fam, ", ".join(sorted(QDC_FAMILIES.keys()))))
    return QDC_FAMILIES[fam]

def _module(src):
    base = src.basename
    return base[:base.rfind(".")] if "." in base else base

def _dep_srcs(ctx):
    return depset(
        [f for f in ctx.files.deps if f.extension == "qd"],
        transitive = [d[QdcInfo].srcs for d in ctx.attr.deps if QdcInfo in d],
    )

def _capdb_files(ctx, fam):
    # the capability files of one family: the label list entry the macro put at its index
    return ctx.attr.capdb[ctx.attr.targets.index(fam)].files.to_list()

def _qdc_outputs_impl(ctx):
    deps = _dep_srcs(ctx)
    outs = {"obj": [], "hdr": [], "gpu": [], "embed": []}
    cpus = [t for t in ctx.attr.targets if _family(t).cpu]
    for src in ctx.files.srcs:
        mod = _module(src)
        for fam in ctx.attr.targets:
            info = _family(fam)
            if len(cpus) > 1 and info.cpu:  # several CPU families: the family joins the prefix
                prefix = (ctx.attr.symbol_prefix or mod + "_") + fam.replace("-", "_").replace(".", "_") + "_"
            else:
                prefix = ctx.attr.symbol_prefix or mod + "_"
            extra = ["--symbol-prefix=" + prefix] if ctx.attr.library else []
            kinds = []
            if info.cpu and ctx.attr.library:
                kinds = [("obj", "o", []), ("hdr", "h", ["--emit=header"])]
            else:
                kinds = [("gpu", info.ext, [])]
                if ctx.attr.embed:
                    kinds.append(("embed", "c", ["--emit=c-array"]))
            for key, ext, emit in kinds:
                out = ctx.actions.declare_file("%s/%s/%s.%s" % (ctx.label.name, fam, mod, ext))
                capdb = _capdb_files(ctx, fam)
                args = ctx.actions.args()
                args.add("--capdb-dir=" + capdb[0].dirname)
                args.add("--target=" + fam)
                args.add_all(extra + emit)
                args.add_all(ctx.attr.opts)
                args.add("-o", out)
                args.add("--")
                args.add(src)
                ctx.actions.run(
                    executable = ctx.executable._qdc,
                    arguments = [args],
                    inputs = depset([src] + capdb, transitive = [deps]),
                    outputs = [out],
                    mnemonic = "Qdc",
                    progress_message = "qdc --target=%s %s -> %s" % (fam, src.short_path, out.short_path),
                )
                outs[key].append(out)
    return [
        DefaultInfo(files = depset(outs["obj"] + outs["hdr"] + outs["gpu"] + outs["embed"])),
        OutputGroupInfo(objects = depset(outs["obj"]), headers = depset(outs["hdr"]),
                        gpu = depset(outs["gpu"]), embedded = depset(outs["embed"])),
        QdcInfo(srcs = depset(ctx.files.srcs, transitive = [deps])),
    ]

_qdc_outputs = rule(
    implementation = _qdc_outputs_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".qd"], mandatory = True),
        "targets": attr.string_list(mandatory = True),
        "deps": attr.label_list(allow_files = [".qd"]),
        "opts": attr.string_list(),
        "embed": attr.bool(),
        "library": attr.bool(),
        "symbol_prefix": attr.string(),
        "capdb": attr.label_list(allow_files = [".yaml"]),
        "_qdc": attr.label(default = "@qdc//:bin/qdc", executable = True, cfg = "exec", allow_single_file = True),
    },
)

def _capdb_labels(targets):
    for t in targets:
        _family(t)
    return ["@qdc//:capdb_" + t for t in targets]

def qdc_kernels(name, srcs, targets, deps = [], opts = [], embed = False, **kwargs):
    """Each source compiled for each family to its natural output (.ptx, .hsaco, .spv, .metal, .o):
    <name>/<family>/<module>.<ext>; embed = True adds <module>.c (--emit=c-array)."""
    _qdc_outputs(name = name, srcs = srcs, targets = targets, deps = deps, opts = opts, embed = embed,
                 capdb = _capdb_labels(targets), **kwargs)

def qdc_library(name, srcs, targets, deps = [], opts = [], embed = False, symbol_prefix = "", **kwargs):
    """A cc_library: for each CPU family an object and a header <family>/<module>.h (symbols
    prefixed <module>_, as CMake's qdc_add_library), linked with @qdc//:qdrt; the GPU families'
    outputs in the output group "gpu" of <name>_qdc (and, with embed = True, compiled into the
    library as C arrays). With one CPU family its directory is on the include path ("histogram.h");
    with several, the library's directory is ("x86_64/histogram.h")."""
    _qdc_outputs(name = name + "_qdc", srcs = srcs, targets = targets, deps = deps, opts = opts, embed = embed,
                 library = True, symbol_prefix = symbol_prefix, capdb = _capdb_labels(targets))
    for group in ["objects", "headers", "embedded", "gpu"]:
        native.filegroup(name = "%s_%s" % (name, group), srcs = [":%s_qdc" % name], output_group = group)
    cpus = [t for t in targets if _family(t).cpu]
    native.cc_library(
        name = name,
        srcs = [":%s_objects" % name, ":%s_embedded" % name],
        hdrs = [":%s_headers" % name],
        includes = [name + "_qdc/" + cpus[0]] if len(cpus) == 1 else [name + "_qdc"],
        deps = ["@qdc//:qdrt"],
        linkstatic = True,
        **kwargs
    )
