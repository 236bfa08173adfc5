# Runs classify_digit on IMAGE and fails unless it prints EXPECT.
if(NOT EXISTS "${IMAGE}")
  message("skipped: ${IMAGE} is absent")
  cmake_language(EXIT 77)
endif()
execute_process(COMMAND "${EXE}" "${IMAGE}" OUTPUT_VARIABLE out ERROR_VARIABLE err
                RESULT_VARIABLE rc)
string(STRIP "${out}" out)
message("classify_digit printed '${out}' (${err})")
if(NOT rc EQUAL 0 OR NOT out STREQUAL "${EXPECT}")
  message(FATAL_ERROR "expected '${EXPECT}', got '${out}' (exit ${rc})")
endif()
