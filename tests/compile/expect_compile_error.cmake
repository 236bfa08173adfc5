# cmake -DCOMPILER=... -DSOURCE=... -DFLAGS=a;b -DEXPECT=re1;re2 -P expect_compile_error.cmake
execute_process(COMMAND ${COMPILER} ${FLAGS} ${SOURCE}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE} compiled, but it must not")
endif()
foreach(re IN LISTS EXPECT)
  string(FIND "${all}" "${re}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${SOURCE} failed to compile, but without '${re}':\n${all}")
  endif()
endforeach()
message(STATUS "${SOURCE} fails to compile as expected")
