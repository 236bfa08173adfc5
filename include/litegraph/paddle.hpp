// The Paddle model loader and writer (links protobuf; litegraph.hpp never includes it),
// the reader of the preprocessing in a model's exported config (nlohmann_json), and
// the session (loads, runs the passes, applies places and limits, runs by name), and
// the OCR pipeline on sessions (ocr.hpp: picture in, text out).
#pragma once

#include "litegraph/firmware/codegen.hpp"
#include "litegraph/loader/paddle/framework_proto.hpp"
#include "litegraph/loader/paddle/loader.hpp"
#include "litegraph/loader/paddle/model.hpp"
#include "litegraph/loader/paddle/params.hpp"
#include "litegraph/loader/paddle/pir.hpp"
#include "litegraph/loader/paddle/types.hpp"
#include "litegraph/loader/paddle/wire_check.hpp"
#include "litegraph/loader/paddle/writer.hpp"
#include "litegraph/ocr.hpp"
#include "litegraph/session.hpp"
#include "litegraph/vision/config.hpp"
