# qdcConfig.cmake — the qdc CMake package: the imported executable qdc::qdc, the CPU runtime
# qdc::qdrt (when installed) and qdc_add_kernels(). Works installed (<prefix>/lib/cmake/qdc)
# and from a source checkout (cmake/, using build/qdc). Set QDC_EXECUTABLE to override.
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
if(NOT TARGET qdc::qdrt AND EXISTS "${_qdc_prefix}/lib/libqdrt.a")
  add_library(qdc::qdrt STATIC IMPORTED)
  set_target_properties(qdc::qdrt PROPERTIES
    IMPORTED_LOCATION "${_qdc_prefix}/lib/libqdrt.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_qdc_prefix}/include/qdc"
    INTERFACE_LINK_LIBRARIES "pthread;m")
endif()

# qdc_add_kernels(<name> SOURCES <file.qd>... TARGETS <family>...
#                 [OUTPUT_DIR <dir>] [OPTIONS <qdc option>...]
#                 [INSTANTIATE <spec>...])
# Adds the custom target <name> (built by ALL) that compiles every source for every family into
# <OUTPUT_DIR>/<family>/<source name>.<ext> (default OUTPUT_DIR: ${CMAKE_CURRENT_BINARY_DIR}/qdc).
# Each (source, family) pair is its own command with a DEPFILE listing the source and the
# family's capability files, so editing one family's YAML rebuilds only that family's outputs.
# The outputs are in the variable <name>_OUTPUTS and the target property QDC_OUTPUTS.
# INSTANTIATE names instantiations of generic kernels, each "[ENTRY=]KERNEL(PARAM=VALUE, ...)"
# (passed as --instantiate=<spec>, see qdc(1)); every source gets every spec.
function(qdc_add_kernels name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "OUTPUT_DIR" "SOURCES;TARGETS;OPTIONS;INSTANTIATE")
  foreach(spec IN LISTS ARG_INSTANTIATE)
    list(APPEND ARG_OPTIONS "--instantiate=${spec}")
  endforeach()
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
    foreach(tgt IN LISTS ARG_TARGETS)
      # Ask qdc for the file name (extension per family and --emit) instead of guessing it.
      execute_process(
        COMMAND "${QDC_EXECUTABLE}" --print-output-names "--target=${tgt}" ${ARG_OPTIONS}
                -o "${ARG_OUTPUT_DIR}/%t/%m.%e" "${src}"
        OUTPUT_VARIABLE out OUTPUT_STRIP_TRAILING_WHITESPACE
        ERROR_VARIABLE err RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "qdc_add_kernels(${name}): ${err}")
      endif()
      string(REGEX REPLACE "\\.[^./]*$" ".d" dep "${out}")
      add_custom_command(
        OUTPUT "${out}"
        COMMAND qdc::qdc "--target=${tgt}" ${ARG_OPTIONS} -o "${out}" -MD -MF "${dep}" "${src}"
        DEPENDS "${src}" qdc::qdc
        DEPFILE "${dep}"
        WORKING_DIRECTORY "${CMAKE_CURRENT_BINARY_DIR}"
        COMMENT "qdc ${tgt} ${src}"
        VERBATIM)
      list(APPEND outputs "${out}")
    endforeach()
  endforeach()
  add_custom_target(${name} ALL DEPENDS ${outputs})
  set_target_properties(${name} PROPERTIES QDC_OUTPUTS "${outputs}")
  set(${name}_OUTPUTS "${outputs}" PARENT_SCOPE)
endfunction()

set(qdc_FOUND TRUE)
cmake_policy(POP)
