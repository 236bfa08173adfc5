// Writes the model-*-<op>-*.bin cases of tests/broken: one-op models
// (tests/fuzz/op_seeds.hpp: every input a constant, or the first float input
// fed) whose inputs or attributes an op must refuse with a clear error: out
// of range indices and ids, inconsistent LoDs, impossible attribute values.
// Each case states the error it expects; the program runs it through the
// fuzz harness first and fails, writing nothing, when the outcome differs.
// The regression test (tests/fuzz/regression.cpp) then checks every file.
//   cmake --build BUILD --target broken_op_cases && BUILD/tests/broken_op_cases tests/broken
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "fuzz/harness.hpp"
#include "fuzz/op_seeds.hpp"

using namespace litegraph;

namespace {

struct op_case {
    std::string name;      // the file: model-<expected>-<name>.bin
    std::string expected;  // shape_error, unsupported_error, ...
    std::string type;
    attr_map attrs;
    named_tensors inputs;
    named_tensors outputs;  // slots and dtypes/shapes of the declared outputs
    bool feed = false;      // the first float input a feed (the harness gives it no LoD)
};

tensor f32(shape_t s, std::vector<float> v) {
    return tensor::from<float>(std::move(s), std::span<const float>(v));
}
tensor i64(shape_t s, std::vector<std::int64_t> v) {
    return tensor::from<std::int64_t>(std::move(s), std::span<const std::int64_t>(v));
}
tensor i32(shape_t s, std::vector<std::int32_t> v) {
    return tensor::from<std::int32_t>(std::move(s), std::span<const std::int32_t>(v));
}
tensor zeros(shape_t s) {
    return tensor(dtype::f32, std::move(s));
}
named_tensors out1(const char* slot, dtype t = dtype::f32) {
    return named_tensors{}.add(slot, tensor(t, {1}));
}

std::string outcome_of(const std::string& bytes, std::string& message) {
    try {
        fuzz::run(fuzz::target::model, bytes);
        return "ok";
    } catch (const shape_error& e) {
        message = e.what();
        return "shape_error";
    } catch (const unsupported_error& e) {
        message = e.what();
        return "unsupported_error";
    } catch (const graph_error& e) {
        message = e.what();
        return "graph_error";
    } catch (const format_error& e) {
        message = e.what();
        return "format_error";
    } catch (const usage_error& e) {
        message = e.what();
        return "usage_error";
    } catch (const error& e) {
        message = e.what();
        return "error";
    }
}

std::vector<op_case> cases() {
    std::vector<op_case> c;
    {
        attr_map a;
        a.set("score_threshold", 0.1f);
        a.set("nms_top_k", -1);
        a.set("keep_top_k", -1);
        c.push_back(
            {"matrix-nms-polygon-boxes", "shape_error", "matrix_nms", a,
             named_tensors{}.add("BBoxes", zeros({1, 2, 8})).add("Scores", zeros({1, 3, 2})),
             out1("Out")});
    }
    {
        attr_map a;
        a.set("score_threshold", 0.1f);
        a.set("nms_top_k", -1);
        a.set("keep_top_k", -1);
        c.push_back(
            {"matrix-nms-int-scores", "shape_error", "matrix_nms", a,
             named_tensors{}.add("BBoxes", zeros({1, 2, 4})).add("Scores", i32({1, 1, 2}, {1, 2})),
             out1("Out")});
    }
    {
        attr_map a;
        a.set("axis", 0);
        c.push_back({"stack-mismatched-inputs", "shape_error", "stack", a,
                     named_tensors{}.add("X", f32({2}, {1, 2})).add("X", f32({3}, {1, 2, 3})),
                     out1("Y")});
    }
    {
        attr_map a;
        a.set("axes", std::vector<std::int32_t>{3});
        a.set("starts", std::vector<std::int32_t>{0});
        a.set("ends", std::vector<std::int32_t>{1});
        c.push_back({"slice-axis-out-of-range", "shape_error", "slice", a,
                     named_tensors{}.add("Input", f32({2, 2}, {1, 2, 3, 4})), out1("Out")});
    }
    {
        attr_map a;
        a.set("padding_idx", std::int64_t{-1});
        c.push_back({"lookup-table-v2-negative-id", "shape_error", "lookup_table_v2", a,
                     named_tensors{}.add("W", f32({2, 2}, {1, 2, 3, 4})).add("Ids", i64({1}, {-3})),
                     out1("Out")});
    }
    // Ops of issue 17.
    c.push_back({"gather-index-out-of-range",
                 "shape_error",
                 "gather",
                 {},
                 named_tensors{}.add("X", f32({2, 2}, {1, 2, 3, 4})).add("Index", i64({2}, {0, 5})),
                 out1("Out")});
    c.push_back({"gather-negative-index",
                 "shape_error",
                 "gather",
                 {},
                 named_tensors{}.add("X", f32({2, 2}, {1, 2, 3, 4})).add("Index", i32({1}, {-1})),
                 out1("Out")});
    c.push_back(
        {"gather-nd-index-out-of-range",
         "shape_error",
         "gather_nd",
         {},
         named_tensors{}.add("X", f32({2, 2}, {1, 2, 3, 4})).add("Index", i64({1, 2}, {1, 7})),
         out1("Out")});
    {
        attr_map a;
        a.set("k", 5);
        c.push_back({"top-k-over-the-dim", "shape_error", "top_k_v2", a,
                     named_tensors{}.add("X", f32({3}, {1, 2, 3})),
                     named_tensors{}.add("Out", zeros({1})).add("Indices", i64({1}, {0}))});
    }
    {
        attr_map a;
        a.set("axis", 0);
        a.set("sections", std::vector<std::int32_t>{1, 1});
        c.push_back({"split-sections-do-not-add-up", "shape_error", "split", a,
                     named_tensors{}.add("X", f32({3}, {1, 2, 3})),
                     named_tensors{}.add("Out", zeros({1})).add("Out", zeros({1}))});
    }
    {
        attr_map a;
        a.set("repeat_times", std::vector<std::int32_t>{-2});
        c.push_back({"tile-negative-repeat", "shape_error", "tile", a,
                     named_tensors{}.add("X", f32({2}, {1, 2})), out1("Out")});
    }
    {
        attr_map a;
        a.set("paddings", std::vector<std::int32_t>{3, 3, 0, 0, 0, 0});
        a.set("mode", std::string("reflect"));
        c.push_back({"pad3d-reflect-wider-than-the-dim", "shape_error", "pad3d", a,
                     named_tensors{}.add("X", zeros({1, 1, 1, 1, 2})), out1("Out")});
    }
    {
        attr_map a;
        a.set("upscale_factor", 2);
        c.push_back({"pixel-shuffle-channels-not-divisible", "shape_error", "pixel_shuffle", a,
                     named_tensors{}.add("X", zeros({1, 3, 2, 2})), out1("Out")});
    }
    {
        attr_map a;
        a.set("groups", 4);
        c.push_back({"group-norm-groups-not-dividing-channels", "shape_error", "group_norm", a,
                     named_tensors{}.add("X", zeros({1, 6, 2, 2})), out1("Y")});
    }
    c.push_back({"elementwise-mod-integer-by-zero",
                 "shape_error",
                 "elementwise_mod",
                 {},
                 named_tensors{}.add("X", i64({2}, {5, 7})).add("Y", i64({2}, {2, 0})),
                 out1("Out", dtype::i64)});
    c.push_back({"range-zero-step",
                 "shape_error",
                 "range",
                 {},
                 named_tensors{}
                     .add("Start", f32({1}, {0}))
                     .add("End", f32({1}, {4}))
                     .add("Step", f32({1}, {0})),
                 out1("Out")});
    {
        attr_map a;
        a.set("dim", std::vector<std::int32_t>{2});
        c.push_back({"reduce-sum-dim-out-of-range", "shape_error", "reduce_sum", a,
                     named_tensors{}.add("X", f32({2}, {1, 2})), out1("Out")});
    }
    {
        attr_map a;
        a.set("axis", 3);
        c.push_back({"cumsum-axis-out-of-range", "shape_error", "cumsum", a,
                     named_tensors{}.add("X", f32({2}, {1, 2})), out1("Out")});
    }
    {
        attr_map a;
        a.set("strides", std::vector<std::int32_t>{1, 0, 1});
        c.push_back({"conv3d-zero-stride", "shape_error", "conv3d", a,
                     named_tensors{}
                         .add("Input", zeros({1, 1, 2, 2, 2}))
                         .add("Filter", zeros({1, 1, 1, 1, 1})),
                     out1("Output")});
    }
    {
        attr_map a;
        a.set("mode", std::string("LSTM"));
        a.set("num_layers", 1);
        a.set("is_bidirec", false);
        a.set("hidden_size", 2);
        a.set("input_size", 3);
        c.push_back({"rnn-lstm-weight-list-too-short", "shape_error", "rnn", a,
                     named_tensors{}
                         .add("Input", zeros({2, 1, 3}))
                         .add("PreState", zeros({1, 1, 2}))
                         .add("PreState", zeros({1, 1, 2}))
                         .add("WeightList", zeros({8, 3}))
                         .add("WeightList", zeros({8, 2})),
                     named_tensors{}
                         .add("Out", zeros({1}))
                         .add("State", zeros({1}))
                         .add("State", zeros({1}))});
    }
    {
        attr_map a;
        a.set("shape", std::vector<std::int32_t>{3, 4});
        c.push_back({"expand-v2-incompatible-shape", "shape_error", "expand_v2", a,
                     named_tensors{}.add("X", f32({2, 1}, {1, 2})), out1("Out")});
    }
    {
        // A real image size no int holds (found by fuzz_model: Paddle's truncation
        // to int overflowed).
        attr_map a;
        a.set("kernels", std::vector<std::int64_t>{2, 2});
        a.set("strides", std::vector<std::int64_t>{1, 1});
        a.set("paddings", std::vector<std::int64_t>{0, 0, 0, 0});
        a.set("out_stride", std::vector<std::int64_t>{1, 1});
        c.push_back(
            {"im2sequence-image-size-past-int", "shape_error", "im2sequence", a,
             named_tensors{}.add("X", zeros({2, 1, 4, 4})).add("Y", f32({2, 2}, {4, 4, 3e18f, 4})),
             out1("Out")});
    }
    // Sequence ops fed a tensor without the LoD they need.
    {
        attr_map a;
        a.set("activation", std::string("tanh"));
        a.set("gate_activation", std::string("sigmoid"));
        c.push_back({"gru-input-without-lod", "shape_error", "gru", a,
                     named_tensors{}.add("Input", zeros({3, 6})).add("Weight", zeros({2, 6})),
                     out1("Hidden"), true});
    }
    c.push_back({"crf-decoding-emission-without-lod",
                 "shape_error",
                 "crf_decoding",
                 {},
                 named_tensors{}.add("Emission", zeros({3, 2})).add("Transition", zeros({4, 2})),
                 out1("ViterbiPath", dtype::i64),
                 true});
    c.push_back({"sequence-softmax-without-lod",
                 "shape_error",
                 "sequence_softmax",
                 {},
                 named_tensors{}.add("X", zeros({4, 1})),
                 out1("Out"),
                 true});
    return c;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: broken_op_cases OUT (tests/broken)\n";
        return 2;
    }
    int failed = 0;
    std::vector<std::pair<std::filesystem::path, std::string>> files;
    for (auto& k : cases()) {
        std::string bytes;
        try {
            bytes = fuzz::op_seeds::model_bytes(k.type, k.attrs, k.inputs, k.outputs, k.feed);
        } catch (const error& e) {
            std::cerr << k.name << ": cannot write the model: " << e.what() << "\n";
            ++failed;
            continue;
        }
        std::string message;
        const auto got = outcome_of(bytes, message);
        std::cout << k.name << ": " << got << (message.empty() ? "" : ": " + message) << "\n";
        if (got != k.expected) {
            std::cerr << k.name << ": expected " << k.expected << ", got " << got << "\n";
            ++failed;
            continue;
        }
        files.emplace_back(
            std::filesystem::path(argv[1]) / ("model-" + k.expected + "-" + k.name + ".bin"),
            bytes);
    }
    if (failed) {
        std::cerr << failed << " case(s) did not give their error; nothing written\n";
        return 1;
    }
    for (auto& [file, bytes] : files)
        std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
    std::cout << "wrote " << files.size() << " cases to " << argv[1] << "\n";
    return 0;
}
