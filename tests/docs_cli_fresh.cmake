# cmake -DPYTHON=python3 -DGEN=tools/gen_cli_doc.py -DCLI=litegraph -DDOC=docs/cli.md
#       -DOUT=scratch.md -P docs_cli_fresh.cmake
# Fails when DOC differs from what GEN makes of `CLI --help` and
# `CLI COMMAND --help` (written to OUT).
execute_process(COMMAND ${PYTHON} ${GEN} ${CLI} -o ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tools/gen_cli_doc.py failed (${rc})")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DOC} ${OUT} RESULT_VARIABLE diff)
if(NOT diff EQUAL 0)
  execute_process(COMMAND diff -u ${DOC} ${OUT})
  message(FATAL_ERROR "${DOC} is stale: regenerate it with "
                      "`python3 tools/gen_cli_doc.py build/bin/litegraph -o docs/cli.md`")
endif()
message(STATUS "${DOC} matches the commands' --help")
