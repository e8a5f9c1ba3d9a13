# qdcConfig.cmake — the qdc CMake package: the imported executable qdc::qdc, the CPU runtime
# qdc::qdrt (libqdrt: the CPU runtime and the device API of qdrt(3), whose Vulkan, CUDA and HIP
# backends open their driver at run time, so linking qdc::qdrt is all any backend needs),
# qdc_add_kernels() and qdc_add_library(). Works installed (<prefix>/lib/cmake/qdc)
# and from a source checkout (cmake/, using build/qdc and build/libqdrt.a). Set QDC_EXECUTABLE
# to override. With a Ninja generator qdc is run with --keep-unchanged (an output whose bytes did
# not change keeps its time stamp) and CMake gives custom commands `restat = 1`, so an edit that
# does not change a header does not recompile the host code that includes it. Other generators
# compare time stamps only, so there qdc updates them (its default) and nothing reruns forever.
cmake_policy(PUSH)
cmake_policy(VERSION 3.20)
if(POLICY CMP0116)
  cmake_policy(SET CMP0116 NEW) # depfile paths relative to the binary dir (we write absolute ones)
endif()

get_filename_component(_qdc_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT QDC_EXECUTABLE)
  if(EXISTS "${_qdc_prefix}/bin/qdc")
    set(QDC_EXECUTABLE "${_qdc_prefix}/bin/qdc")
  elseif(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../build/qdc")
    get_filename_component(QDC_EXECUTABLE "${CMAKE_CURRENT_LIST_DIR}/../build/qdc" ABSOLUTE)
  endif()
endif()
set(QDC_EXECUTABLE "${QDC_EXECUTABLE}" CACHE FILEPATH "The qdc compiler")
if(NOT QDC_EXECUTABLE OR NOT EXISTS "${QDC_EXECUTABLE}")
  set(qdc_FOUND FALSE)
  set(qdc_NOT_FOUND_MESSAGE "qdc executable not found (set QDC_EXECUTABLE)")
  cmake_policy(POP)
  return()
endif()

if(NOT TARGET qdc::qdc)
  add_executable(qdc::qdc IMPORTED)
  set_target_properties(qdc::qdc PROPERTIES IMPORTED_LOCATION "${QDC_EXECUTABLE}")
endif()
if(EXISTS "${_qdc_prefix}/lib/libqdrt.a")
  set(_qdc_rt "${_qdc_prefix}/lib/libqdrt.a")
  set(_qdc_rt_inc "${_qdc_prefix}/include/qdc")
elseif(EXISTS "${CMAKE_CURRENT_LIST_DIR}/../build/libqdrt.a")
  get_filename_component(_qdc_rt "${CMAKE_CURRENT_LIST_DIR}/../build/libqdrt.a" ABSOLUTE)
  get_filename_component(_qdc_rt_inc "${CMAKE_CURRENT_LIST_DIR}/../runtime" ABSOLUTE)
endif()
if(NOT TARGET qdc::qdrt AND _qdc_rt)
  add_library(qdc::qdrt STATIC IMPORTED)
  set_target_properties(qdc::qdrt PROPERTIES
    IMPORTED_LOCATION "${_qdc_rt}"
    INTERFACE_INCLUDE_DIRECTORIES "${_qdc_rt_inc}"
    INTERFACE_LINK_LIBRARIES "pthread;m;${CMAKE_DL_LIBS}"
    # CPU modules loaded at run time (qdrt_module_load of a .o) call back into the program's libqdrt
    INTERFACE_LINK_OPTIONS "LINKER:--export-dynamic")
endif()

# _qdc_compile(<out var> <src> <family> <file template> <options...>): one custom command
# compiling src for one family; the file name comes from qdc --print-output-names. The depfile
# is the output name plus ".d" (k.o.d, k.h.d): two outputs of one source never share one.
function(_qdc_compile outvar src tgt tmpl)
  execute_process(
    COMMAND "${QDC_EXECUTABLE}" --print-output-names "--target=${tgt}" ${ARGN} -o "${tmpl}" "${src}"
    OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE
    ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${err}") # qdc's message already starts with "qdc: error"
  endif()
  set(keep "")
  if(CMAKE_GENERATOR MATCHES "Ninja")
    set(keep --keep-unchanged)
  endif()
  set(outs "${out}")
  set(embed "")
  if(_qdc_embed) # qdc_add_library(EMBED): the same run writes <out>.c and <out>.h
    set(outs "${out}" "${out}.c" "${out}.h")
    set(embed --embed)
  endif()
  add_custom_command(
    OUTPUT ${outs}
    COMMAND qdc::qdc "--target=${tgt}" ${keep} ${embed} ${ARGN} -o "${out}" -MD -MF "${out}.d" "${src}"
    DEPENDS "${src}" qdc::qdc
    DEPFILE "${out}.d"
    WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
    COMMENT "qdc ${tgt} ${src} -> ${out}"
    VERBATIM)
  set(${outvar} "${out}" PARENT_SCOPE)
endfunction()

# The --symbol-prefix for one source: SYMBOL_PREFIX if given (empty: none), else "<module>_".
function(_qdc_prefix_opts outvar src have_prefix prefix)
  get_filename_component(mod "${src}" NAME_WE)
  if(NOT have_prefix)
    set(prefix "${mod}_")
  endif()
  if(prefix STREQUAL "")
    set(${outvar} "" PARENT_SCOPE)
  else()
    set(${outvar} "--symbol-prefix=${prefix}" PARENT_SCOPE)
  endif()
endfunction()

# qdc_add_kernels(<name> SOURCES <file.qd>... TARGETS <family>...
#                 [OUTPUT_DIR <dir>] [OPTIONS <qdc option>...] [SYMBOL_PREFIX <p>]
#                 [INSTANTIATE <spec>...])
# Adds the custom target <name> (built by ALL) that compiles every source for every family into
# <OUTPUT_DIR>/<family>/<source name>.<ext> (default OUTPUT_DIR: ${CMAKE_CURRENT_BINARY_DIR}/qdc).
# Each (source, family) pair is its own command with a DEPFILE (<output>.d) listing the source
# and the family's capability files, so editing one family's YAML rebuilds only that family's
# outputs. Symbols get --symbol-prefix=<source name>_ unless SYMBOL_PREFIX says otherwise
# (SYMBOL_PREFIX "" for none). The outputs are in <name>_OUTPUTS and the property QDC_OUTPUTS.
# INSTANTIATE names instantiations of generic kernels, each "[ENTRY=]KERNEL(PARAM=VALUE, ...)"
# (passed as --instantiate=<spec>, see qdc(1)); every source gets every spec.
function(qdc_add_kernels name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_DIR;SYMBOL_PREFIX" "SOURCES;TARGETS;OPTIONS;INSTANTIATE")
  foreach(spec IN LISTS ARG_INSTANTIATE)
    list(APPEND ARG_OPTIONS "--instantiate=${spec}")
  endforeach()
  set(have_prefix FALSE)
  if("SYMBOL_PREFIX" IN_LIST ARGN)
    set(have_prefix TRUE)
  endif()
  if(NOT ARG_SOURCES OR NOT ARG_TARGETS)
    message(FATAL_ERROR "qdc_add_kernels(${name}): SOURCES and TARGETS are required")
  endif()
  if(NOT CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    message(FATAL_ERROR "qdc_add_kernels needs a Ninja or Makefile generator (DEPFILE)")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/qdc")
  endif()
  set(outputs "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    _qdc_prefix_opts(pfx "${src}" ${have_prefix} "${ARG_SYMBOL_PREFIX}")
    foreach(tgt IN LISTS ARG_TARGETS)
      _qdc_compile(out "${src}" "${tgt}" "${ARG_OUTPUT_DIR}/%t/%m.%e" ${pfx} ${ARG_OPTIONS})
      list(APPEND outputs "${out}")
    endforeach()
  endforeach()
  add_custom_target(${name} ALL DEPENDS ${outputs})
  set_target_properties(${name} PROPERTIES QDC_OUTPUTS "${outputs}")
  set(${name}_OUTPUTS "${outputs}" PARENT_SCOPE)
endfunction()

# qdc_add_library(<name> [STATIC|SHARED] SOURCES <file.qd>... TARGETS <family>... [EMBED]
#                 [OUTPUT_DIR <dir>] [OPTIONS <qdc option>...] [SYMBOL_PREFIX <p>]
#                 [INSTANTIATE <spec>...])
# A STATIC (default) or SHARED library, in the manner of CMake's ISPC support: for each CPU
# family in TARGETS (x86_64, x86_64-v3) every source becomes an object in the library and a C
# header <OUTPUT_DIR>/<family>/<source name>.h; qdc::qdrt is linked PUBLIC (SHARED: INTERFACE,
# so the program holds the one copy the kernels call back into). GPU families are
# compiled to their natural outputs and their metadata (<family>/<source>.json, for libqdrt's
# qdrt_module_load), all listed in <name>_GPU_OUTPUTS and the property QDC_GPU_OUTPUTS; with EMBED
# the same qdc run (--embed) also writes <output>.c, compiled into the library as
# `const unsigned char <prefix>qdc_<source>_<family>[]` and `..._size`, and <output>.h declaring
# them (#include "<family>/<source>.<ext>.h" with OUTPUT_DIR on the include path; see qdc(1)).
# Symbols get --symbol-prefix=<source name>_ unless SYMBOL_PREFIX says otherwise, so two sources
# may both declare a field `counter`. INSTANTIATE specs ("[ENTRY=]KERNEL(PARAM=VALUE, ...)")
# are passed as --instantiate=<spec> for every source, as in qdc_add_kernels().
# Several CPU families: each family's symbols get the family too, <prefix><family>_ with '-'
# as '_' (histogram_x86_64_histogram, histogram_x86_64_v3_histogram), and the PUBLIC include
# directory is <OUTPUT_DIR> itself, so one translation unit includes "x86_64/histogram.h" and
# "x86_64-v3/histogram.h" and dispatches at run time (qdc(1), CMake). With one CPU family the
# include directory is <OUTPUT_DIR>/<family> and the prefix has no family, as before.
# The project must enable C.
function(qdc_add_library name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "EMBED;STATIC;SHARED" "OUTPUT_DIR;SYMBOL_PREFIX"
                        "SOURCES;TARGETS;OPTIONS;INSTANTIATE")
  if(NOT ARG_SOURCES OR NOT ARG_TARGETS)
    message(FATAL_ERROR "qdc_add_library(${name}): SOURCES and TARGETS are required")
  endif()
  if(ARG_STATIC AND ARG_SHARED)
    message(FATAL_ERROR "qdc_add_library(${name}): STATIC or SHARED, not both")
  endif()
  set(kind STATIC)
  if(ARG_SHARED)
    set(kind SHARED)
  endif()
  foreach(spec IN LISTS ARG_INSTANTIATE)
    list(APPEND ARG_OPTIONS "--instantiate=${spec}")
  endforeach()
  set(have_prefix FALSE)
  if("SYMBOL_PREFIX" IN_LIST ARGN)
    set(have_prefix TRUE)
  endif()
  if(NOT ARG_OUTPUT_DIR)
    set(ARG_OUTPUT_DIR "${CMAKE_CURRENT_BINARY_DIR}/qdc/${name}")
  endif()
  set(cpus "")
  foreach(tgt IN LISTS ARG_TARGETS)
    if(tgt MATCHES "^x86_64")
      list(APPEND cpus "${tgt}")
    endif()
  endforeach()
  list(LENGTH cpus ncpus)
  set(objs "")
  set(headers "")
  set(gpu "")
  set(embedded "")
  foreach(src IN LISTS ARG_SOURCES)
    get_filename_component(src "${src}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    foreach(tgt IN LISTS ARG_TARGETS)
      if(tgt IN_LIST cpus AND ncpus GREATER 1)
        # one library, several CPU families: the family joins the prefix
        get_filename_component(mod "${src}" NAME_WE)
        string(MAKE_C_IDENTIFIER "${tgt}" fam)
        if(have_prefix)
          set(pfx "--symbol-prefix=${ARG_SYMBOL_PREFIX}${fam}_")
        else()
          set(pfx "--symbol-prefix=${mod}_${fam}_")
        endif()
      else()
        _qdc_prefix_opts(pfx "${src}" ${have_prefix} "${ARG_SYMBOL_PREFIX}")
      endif()
      if(tgt IN_LIST cpus)
        _qdc_compile(obj "${src}" "${tgt}" "${ARG_OUTPUT_DIR}/%t/%m.o" ${pfx} ${ARG_OPTIONS})
        _qdc_compile(hdr "${src}" "${tgt}" "${ARG_OUTPUT_DIR}/%t/%m.h" ${pfx} ${ARG_OPTIONS})
        list(APPEND objs "${obj}")
        list(APPEND headers "${hdr}")
      else()
        set(_qdc_embed ${ARG_EMBED}) # read by _qdc_compile: one run writes the output and its array
        _qdc_compile(out "${src}" "${tgt}" "${ARG_OUTPUT_DIR}/%t/%m.%e" ${pfx} ${ARG_OPTIONS})
        set(_qdc_embed FALSE)
        # the metadata beside it: what qdrt_module_load(dev, "<family>/<source>.<ext>", NULL, ...) reads
        _qdc_compile(meta "${src}" "${tgt}" "${ARG_OUTPUT_DIR}/%t/%m.json" ${pfx} --emit=metadata ${ARG_OPTIONS})
        list(APPEND gpu "${out}" "${meta}")
        if(ARG_EMBED)
          list(APPEND embedded "${out}.c" "${out}.h")
        endif()
      endif()
    endforeach()
  endforeach()
  set_source_files_properties(${objs} PROPERTIES EXTERNAL_OBJECT TRUE GENERATED TRUE)
  add_custom_target(${name}_qdc_outputs DEPENDS ${headers} ${gpu})
  add_library(${name} ${kind} ${objs} ${headers} ${embedded})
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE C QDC_GPU_OUTPUTS "${gpu}")
  add_dependencies(${name} ${name}_qdc_outputs)
  if(ARG_EMBED) # "<family>/<source>.<ext>.h" declares each embedded array
    target_include_directories(${name} PUBLIC "${ARG_OUTPUT_DIR}")
  endif()
  if(ncpus EQUAL 1)
    target_include_directories(${name} PUBLIC "${ARG_OUTPUT_DIR}/${cpus}")
  elseif(ncpus GREATER 1)
    target_include_directories(${name} PUBLIC "${ARG_OUTPUT_DIR}")
  endif()
  if(TARGET qdc::qdrt AND kind STREQUAL "SHARED")
    # the program links libqdrt once; the kernels in the shared library call into that copy
    target_link_libraries(${name} INTERFACE qdc::qdrt)
  elseif(TARGET qdc::qdrt)
    target_link_libraries(${name} PUBLIC qdc::qdrt)
  endif()
  set(${name}_GPU_OUTPUTS "${gpu}" PARENT_SCOPE)
endfunction()

set(qdc_FOUND TRUE)
cmake_policy(POP)
