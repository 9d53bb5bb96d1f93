# Build information compiled into pe_core (core/buildinfo.cpp): the git revision at configure
# time and the QCustomPlot version of the header built against (pe_core does not include it).
# Included from core/CMakeLists.txt; writes ${PROJECT_BINARY_DIR}/generated/buildinfo_config.h.

set(PE_GIT_REVISION "unknown")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(
    COMMAND "${GIT_EXECUTABLE}" describe --always --dirty --tags
    WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
    OUTPUT_VARIABLE pe_describe OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE pe_describe_result ERROR_QUIET)
  if(pe_describe_result EQUAL 0 AND pe_describe)
    set(PE_GIT_REVISION "${pe_describe}")
    # Configure again when HEAD moves (a commit or a checkout), so the revision stays current.
    execute_process(
      COMMAND "${GIT_EXECUTABLE}" symbolic-ref -q HEAD
      WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
      OUTPUT_VARIABLE pe_branch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(pe_ref HEAD packed-refs ${pe_branch})
      execute_process(
        COMMAND "${GIT_EXECUTABLE}" rev-parse --path-format=absolute --git-path ${pe_ref}
        WORKING_DIRECTORY "${PROJECT_SOURCE_DIR}"
        OUTPUT_VARIABLE pe_ref_path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(pe_ref_path AND EXISTS "${pe_ref_path}" AND NOT IS_DIRECTORY "${pe_ref_path}")
        set_property(DIRECTORY "${PROJECT_SOURCE_DIR}" APPEND PROPERTY
          CMAKE_CONFIGURE_DEPENDS "${pe_ref_path}")
      endif()
    endforeach()
  endif()
endif()

set(PE_QCUSTOMPLOT_VERSION "unknown")
get_target_property(pe_qcp_includes QCustomPlotQt6::QCustomPlotQt6 INTERFACE_INCLUDE_DIRECTORIES)
find_file(PE_QCUSTOMPLOT_HEADER qcustomplot.h HINTS ${pe_qcp_includes} NO_CACHE)
if(PE_QCUSTOMPLOT_HEADER)
  file(STRINGS "${PE_QCUSTOMPLOT_HEADER}" pe_qcp_line
       REGEX "^#define QCUSTOMPLOT_VERSION_STR \"[^\"]+\"")
  if(pe_qcp_line MATCHES "\"([^\"]+)\"")
    set(PE_QCUSTOMPLOT_VERSION "${CMAKE_MATCH_1}")
  endif()
endif()

configure_file("${CMAKE_CURRENT_LIST_DIR}/buildinfo_config.h.in"
               "${PROJECT_BINARY_DIR}/generated/buildinfo_config.h" @ONLY)
