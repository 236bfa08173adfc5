# The run-time SIMD dispatch's units, from the one instruction-set table
# (include/litegraph/kernels/isa_table.hpp; installed with the headers).
#
# litegraph_isa_rows(<prefix> <table>): reads the table's rows into
# <prefix>_SLOTS (narrowest first) and, per slot S, <prefix>_<S>_FAMILY,
# <prefix>_<S>_FLAGS (a list) and <prefix>_<S>_MACROS (a list).  Usable in
# script mode (cmake -P).
#
# litegraph_simd_units(<out-var> <unit-dir> <table>): the units <unit-dir>/<S>.cpp
# of the table's rows that this compiler and these flags need, each given its
# row's flags (source property COMPILE_OPTIONS, in the calling directory).
# Those of this target's CPU family (the row's family: x86_64 on x86-64 ELF,
# aarch64 on aarch64 Linux, with GCC or clang; none elsewhere), and none whose row the flags
# (CMAKE_CXX_FLAGS, e.g. -march=native) already give, or a wider row's.
# A row without its unit file is an error.  LITEGRAPH_SIMD_SLOTS (a list of
# slot names; empty: every row) keeps the units of those rows only, for a
# build that targets known CPUs (fewer units to compile; the other rows need
# no unit file); a name the table has no row for is an error.  -ffp-contract=off: the compiler
# must not fuse a * b + c into an FMA where the baseline rounds twice (a fused
# conv's folded batch norm equals the unfused ops bit for bit); the kernels'
# own FMAs are explicit (xsimd::fma).  Sets LITEGRAPH_SIMD_X86_64,
# LITEGRAPH_SIMD_AARCH64 and, per
# slot S, LITEGRAPH_SIMD_BASE_<S> (the flags already give S) in the cache.
include(CheckCXXSourceCompiles)

function(litegraph_isa_rows prefix table)
  # One list element per line: `;` and brackets kept aside (a bracket
  # groups list elements), the rows' trailing backslashes (which would
  # escape the list separator) dropped.
  file(READ "${table}" text)
  string(REPLACE "\\" "" text "${text}")
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REPLACE "[" "<lb>" text "${text}")
  string(REPLACE "]" "<rb>" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(slots)
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^ *X\\(")
      continue()
    endif()
    string(REPLACE "<semicolon>" ";" line "${line}")
    string(REPLACE "<lb>" "[" line "${line}")
    string(REPLACE "<rb>" "]" line "${line}")
    if(NOT line MATCHES "^ *X\\(([a-z0-9_]+), ([a-z0-9_]+), \"([^\"]*)\", \"([^\"]*)\", ")
      message(FATAL_ERROR "${table}: a row not of the form X(slot, family, \"flags\", \"macros\", cpu): ${line}")
    endif()
    set(slot ${CMAKE_MATCH_1})
    list(APPEND slots ${slot})
    set(${prefix}_${slot}_FAMILY "${CMAKE_MATCH_2}" PARENT_SCOPE)
    set(${prefix}_${slot}_FLAGS "${CMAKE_MATCH_3}" PARENT_SCOPE)
    set(${prefix}_${slot}_MACROS "${CMAKE_MATCH_4}" PARENT_SCOPE)
  endforeach()
  set(${prefix}_SLOTS ${slots} PARENT_SCOPE)
endfunction()

function(litegraph_simd_units out dir table)
  set(units)
  check_cxx_source_compiles("
#if !defined(__x86_64__) || !(defined(__GNUC__) || defined(__clang__)) || !defined(__ELF__)
#error not x86-64 ELF with GCC or clang
#endif
int main() { return 0; }" LITEGRAPH_SIMD_X86_64)
  check_cxx_source_compiles("
#if !defined(__aarch64__) || !defined(__linux__) || !(defined(__GNUC__) || defined(__clang__))
#error not aarch64 Linux with GCC or clang
#endif
int main() { return 0; }" LITEGRAPH_SIMD_AARCH64)
  if(LITEGRAPH_SIMD_X86_64)
    set(family x86_64)
  elseif(LITEGRAPH_SIMD_AARCH64)
    set(family aarch64)
  else()
    set(${out} "" PARENT_SCOPE)
    return()
  endif()
  litegraph_isa_rows(_isa "${table}")
  foreach(slot IN LISTS LITEGRAPH_SIMD_SLOTS)
    if(NOT slot IN_LIST _isa_SLOTS)
      string(REPLACE ";" ", " rows "${_isa_SLOTS}")
      message(FATAL_ERROR "LITEGRAPH_SIMD_SLOTS names ${slot}, which is no row of ${table} (rows: ${rows})")
    endif()
  endforeach()
  # Widest first: a row is left out when the flags give it or a wider row.
  set(reversed ${_isa_SLOTS})
  list(REVERSE reversed)
  set(base_reaches FALSE)
  foreach(slot IN LISTS reversed)
    if(NOT _isa_${slot}_FAMILY STREQUAL family)
      continue()
    endif()
    if(LITEGRAPH_SIMD_SLOTS AND NOT slot IN_LIST LITEGRAPH_SIMD_SLOTS)
      continue()  # not kept: needs no unit file
    endif()
    if(NOT EXISTS "${dir}/${slot}.cpp")
      message(FATAL_ERROR "the instruction-set table ${table} has the row ${slot}, but there is no unit ${dir}/${slot}.cpp")
    endif()
    set(test "")
    foreach(m IN LISTS _isa_${slot}_MACROS)
      string(APPEND test "#if !defined(${m})\n#error no ${m}\n#endif\n")
    endforeach()
    check_cxx_source_compiles("${test}int main() { return 0; }" LITEGRAPH_SIMD_BASE_${slot})
    if(LITEGRAPH_SIMD_BASE_${slot})
      set(base_reaches TRUE)
    endif()
    if(NOT base_reaches)
      list(PREPEND units ${dir}/${slot}.cpp)
      set_source_files_properties(${dir}/${slot}.cpp PROPERTIES COMPILE_OPTIONS
                                  "${_isa_${slot}_FLAGS};-ffp-contract=off")
    endif()
  endforeach()
  set(${out} ${units} PARENT_SCOPE)
endfunction()
