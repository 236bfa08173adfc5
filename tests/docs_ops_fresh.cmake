# cmake -DCLI=litegraph -DDOC=docs/ops.md -DOUT=scratch.md -P docs_ops_fresh.cmake
# Fails when DOC differs from `CLI ops --markdown` (written to OUT).
execute_process(COMMAND ${CLI} ops --markdown OUTPUT_FILE ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "litegraph ops --markdown failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DOC} ${OUT} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  message(FATAL_ERROR "${DOC} is stale: regenerate it with `litegraph ops --markdown > docs/ops.md`")
endif()
message(STATUS "${DOC} matches `litegraph ops --markdown`")
