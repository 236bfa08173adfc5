// Paddle 3.x PIR programs (inference.json): the real PP-LCNet text-line
// orientation classifier against its reference, every shared PIR program in
// info and plan, and the reader's checks on small programs written here.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "fuzz/op_seeds.hpp"
#include "litegraph/core/npy.hpp"
#include "litegraph/ops/builtin_ops.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "loader/paddle_support.hpp"
#include "pir_json.hpp"

using namespace litegraph;

namespace loader_paddle_pir_test {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// ---- small programs written as PIR JSON (tests/pir_json.hpp) -----------------

using namespace test::pir_json;

/// x [-1, 4] @ alpha [4, 3] + zeta [3] -> softmax: the parameters declared
/// zeta first (program order), stored alpha first (byte-sorted names).
json affine_program() {
    return program(json::array({
        param("zeta", 1, tensor_type("0.t_f32", {3})),
        param("alpha", 2, tensor_type("0.t_f32", {4, 3})),
        data("x", 3, {-1, 4}),
        op("1.matmul", {3, 2}, {{4, tensor_type("0.t_f32", {-1, 3})}},
           json::array(
               {attr("transpose_x", "0.a_bool", false), attr("transpose_y", "0.a_bool", false)})),
        op("1.add", {4, 1}, {{5, tensor_type("0.t_f32", {-1, 3})}}),
        op("1.softmax", {5}, {{6, tensor_type("0.t_f32", {-1, 3})}},
           json::array({attr("axis", "0.a_i32", -1)})),
        fetch(6, 7, 0),
    }));
}

tensor iota(shape_t s, float scale) {
    tensor t(dtype::f32, std::move(s));
    auto v = t.span<float>();
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = scale * static_cast<float>(i) - 0.3f;
    return t;
}

std::string affine_params(const tensor& alpha, const tensor& zeta) {
    std::string p;
    paddle::append_record(p, alpha);  // "alpha" < "zeta"
    paddle::append_record(p, zeta);
    return p;
}

paddle::model load_text(const std::string& text, const std::string& params = {},
                        bool require = false) {
    paddle::load_options o;
    o.require_params = require;
    fuzz::op_seeds::record_pir(text, params);  // a fuzz seed (tools/record-op-seeds.sh)
    return paddle::load_pir_from_memory(text, params, o);
}

json_error json_fault(const std::string& text) {
    return test::expect_error<json_error>([&] { load_text(text); });
}

/// Zeros of each input's declared shape, an open dim 1 for the batch and 64
/// elsewhere (detectors take any multiple of 32; classifiers their declared size).
void feed_zeros(runtime::program& p) {
    for (std::size_t i = 0; i < p.input_count(); ++i) {
        auto s = p.input_var(i).shape;
        for (auto& d : s)
            if (d < 0) d = &d == &s[0] ? 1 : 64;
        p.set_input(i, tensor(p.input_var(i).type, s));
    }
}

/// The unsupported op names of a loaded PIR model, as `litegraph info` marks them.
std::vector<std::string> unsupported_ops(const paddle::model_info& info) {
    std::vector<std::string> r;
    for (const auto& count : info.op_counts) {
        const std::string& name = count.first;
        auto it = info.op_types.find(name);
        REQUIRE_MESSAGE(it != info.op_types.end(), "op " << name << " has no recorded type");
        if (!it->second.empty() && !is_supported(it->second) &&
            !runtime::is_control_flow_op(it->second))
            r.push_back(name);
    }
    return r;
}

}  // namespace

TEST_CASE("PP-LCNet x0.25 text-line orientation (PIR) matches its reference to 1e-5") {
    auto dir = test::shared_model("pp_lcnet_x0_25_textline_ori_pir");
    if (dir.empty()) return;
    auto x = load_npy(dir / "reference" / "input_x.npy");
    auto expect = load_npy(dir / "reference" / "output_0.npy");
    REQUIRE(expect.shape() == shape_t{6, 2});
    for (bool fuse : {false, true}) {
        auto m = paddle::load(dir);
        CHECK(m.info.format == "pir-json");
        CHECK(m.info.topology_file.filename() == "inference.json");
        CHECK(m.info.params_file.filename() == "inference.pdiparams");
        CHECK(m.info.num_params == 145);
        REQUIRE(m.info.feeds.size() == 1);
        CHECK(m.info.feeds[0].name == "x");
        CHECK(m.info.feeds[0].dims == shape_t{-1, 3, 80, 160});
        REQUIRE(m.info.fetches.size() == 1);
        CHECK(m.info.fetches[0].name == "fetch_name_0");
        CHECK(unsupported_ops(m.info).empty());
        if (fuse) {
            auto r = passes::run_passes(m.graph);
            MESSAGE("passes: " << r.to_string());
            // Every conv+bn pair folds, the SE biases (reshaped parameters) merge
            // into their convs, and both SE gates fuse.
            CHECK(r.count("fold_batch_norm") == 27);
            CHECK(r.count("fuse_conv_bias") == 4);
            CHECK(r.count("fuse_gate") == 2);
        }
        runtime::program p(std::move(m.graph));
        p.set_input("x", x);
        p.run();
        const auto& got = p.output(0);
        REQUIRE(got.shape == expect.shape());
        const double diff = test::max_abs_diff(got.span<float>(), expect.span<float>());
        // The probabilities saturate (1 and ~1e-16): their logarithms compare
        // the logits' differences, which an absolute 1e-5 cannot see.
        double log_diff = 0;
        for (std::size_t i = 0; i < got.span<float>().size(); ++i)
            log_diff = std::max(log_diff, std::fabs(std::log(double(got.span<float>()[i])) -
                                                    std::log(double(expect.span<float>()[i]))));
        MESSAGE(std::string(fuse ? "fused" : "unfused")
                << ": max |diff| = " << diff << ", max |log diff| = " << log_diff);
        CHECK(diff <= 1e-5);
        CHECK(log_diff <= 1e-4);
        auto s = got.span<float>();
        std::vector<int> classes;
        for (std::size_t i = 0; i < 6; ++i) classes.push_back(s[2 * i + 1] > s[2 * i] ? 1 : 0);
        CHECK(classes == std::vector<int>{0, 0, 0, 1, 1, 1});
    }
}

TEST_CASE("every shared PIR program loads; those whose ops are all supported plan") {
    auto root = test::shared_model("", "models_topology_only_pir");
    if (root.empty()) return;
    // Pinned: what litegraph makes of each program today.
    const std::set<std::string> runnable = {"PP-LCNet_x1_0_doc_ori",
                                            "PP-LCNet_x1_0_textline_ori",
                                            "PP-OCRv4_server_det",
                                            "PP-OCRv4_server_seal_det",
                                            "PP-OCRv5_mobile_det_infer",
                                            "PP-OCRv5_server_det",
                                            "PP-OCRv4_server_rec_doc",
                                            "PP-OCRv5_server_rec",
                                            "korean_PP-OCRv5_mobile_rec_infer",
                                            "p2o_thresholded_relu",
                                            "UVDoc",
                                            "RT-DETR-H_layout_3cls",
                                            "p2o_ifelse"};  // control flow: if
    // Every op runs, but a shape depends on a value known only when the
    // program runs (SLANet_plus: its output's length is its while loop's count).
    const std::set<std::string> shape_at_run = {"SLANet_plus"};
    std::vector<fs::path> dirs;
    for (auto& e : fs::directory_iterator(root))
        if (e.is_directory()) dirs.push_back(e.path());
    std::sort(dirs.begin(), dirs.end());
    CHECK(dirs.size() >= 14);
    for (auto& dir : dirs) {
        const auto name = dir.filename().string();
        INFO("program " << name);
        paddle::load_options o;
        o.require_params = false;
        auto m = paddle::load(dir, o);
        CHECK(m.info.format == "pir-json");
        CHECK(!m.info.feeds.empty());
        CHECK(!m.info.fetches.empty());
        // Every op name has a translation or stays under its own name (no kernel).
        for (auto& [op, type] : m.info.op_types)
            if (auto t = paddle::pir::translated_type(op); t && type != op) CHECK(type == *t);
        const auto unsupported = unsupported_ops(m.info);
        std::string list;
        for (auto& u : unsupported) list += " " + u;
        MESSAGE(name << ": " << m.info.op_counts.size()
                     << " op names, unsupported:" << (list.empty() ? " none" : list));
        if (shape_at_run.count(name)) {
            CHECK(unsupported.empty());
            runtime::program p(std::move(m.graph));
            feed_zeros(p);
            CHECK_THROWS_WITH_AS(p.prepare_plan(), doctest::Contains("is not known before the run"),
                                 shape_error);
        } else if (runnable.count(name)) {
            CHECK(unsupported.empty());
            passes::run_passes(m.graph);
            runtime::program p(std::move(m.graph));
            feed_zeros(p);
            p.prepare_plan();
            CHECK(p.memory().arena_bytes > 0);
        } else {
            CHECK(!unsupported.empty());
            const auto e = test::expect_error<unsupported_error>(
                [&] { runtime::program p(std::move(m.graph)); });
            for (auto& u : unsupported)
                if (m.info.op_notes.count(u) == 0 && m.info.op_types.at(u) == u)
                    CHECK(std::string(e.what()).find(u) != std::string::npos);
        }
    }
}

TEST_CASE("PIR: parameters come in byte-sorted order of their names; the program runs") {
    const auto alpha = iota({4, 3}, 0.05f), zeta = iota({3}, 0.2f);
    auto m = load_text(affine_program().dump(), affine_params(alpha, zeta), true);
    CHECK(m.info.format == "pir-json");
    CHECK(m.info.num_params == 2);
    CHECK(m.info.op_types.at("1.add") == "elementwise_add");
    runtime::program p(std::move(m.graph));
    const auto x = iota({2, 4}, 0.1f);
    p.set_input("x", x);
    p.run();
    // The same by plain loops.
    auto xs = x.span<float>();
    auto as = alpha.span<float>();
    auto zs = zeta.span<float>();
    std::vector<float> want;
    for (int r = 0; r < 2; ++r) {
        float y[3], mx = -1e30f, sum = 0;
        for (int c = 0; c < 3; ++c) {
            y[c] = zs[c];
            for (int k = 0; k < 4; ++k) y[c] += xs[r * 4 + k] * as[k * 3 + c];
            mx = std::max(mx, y[c]);
        }
        for (float& v : y) sum += (v = std::exp(v - mx));
        for (float v : y) want.push_back(v / sum);
    }
    CHECK(test::max_abs_diff(p.output(0).span<float>(), want) <= 1e-6);
    // Records in program order put zeta's 3 values where alpha's 12 belong.
    std::string swapped;
    paddle::append_record(swapped, zeta);
    paddle::append_record(swapped, alpha);
    const auto e = test::expect_error<format_error>(
        [&] { load_text(affine_program().dump(), swapped, true); });
    CHECK(std::string(e.what()).find("parameter 'alpha' is stored with dims [3]") !=
          std::string::npos);
}

TEST_CASE("PIR: malformed programs are typed errors naming the JSON path") {
    auto prog = affine_program();
    auto& ops = prog["program"]["regions"][0]["blocks"][0]["ops"];
    {
        auto p = prog;
        p["program"]["regions"][0]["blocks"][0]["ops"][3]["I"][1]["%"] = 412;
        auto e = json_fault(p.dump());
        CHECK(e.path() == "ops[3].I[1]");
        CHECK(std::string(e.what()) ==
              "<memory>/topology: ops[3].I[1]: value %412 used before it is defined");
    }
    {
        auto p = prog;
        p["program"]["regions"][0]["blocks"][0]["ops"][4]["O"][0]["%"] = 4;
        auto e = json_fault(p.dump());
        CHECK(e.path() == "ops[4].O[0]");
        CHECK(std::string(e.what()).find("defined twice (first at ops[3].O[0])") !=
              std::string::npos);
    }
    {
        auto p = prog;
        p["base_code"]["magic"] = "onnx";
        CHECK(std::string(json_fault(p.dump()).what()).find("not a PIR program") !=
              std::string::npos);
    }
    {
        auto p = prog;
        p["program"]["regions"][0]["blocks"][0]["ops"] = json::object();
        auto e = json_fault(p.dump());
        CHECK(e.path() == "program.regions[0].blocks[0].ops");
        CHECK(std::string(e.what()).find("expected an array, got object") != std::string::npos);
    }
    {
        auto p = prog;
        p["program"]["regions"][0]["blocks"][0]["ops"][3]["I"][0] = "x";
        CHECK(json_fault(p.dump()).path() == "ops[3].I[0]");
    }
    {
        auto p = prog;
        p["program"]["regions"][0]["blocks"][0]["ops"][5]["A"][0]["AT"]["D"] = 1e12;
        auto e = json_fault(p.dump());
        CHECK(e.path() == "ops[5].A[0].AT.D");
    }
    {
        auto p = prog;
        p["program"]["regions"][0]["blocks"][0]["ops"][1]["O"]["TT"]["D"][1] = {4, -7};
        CHECK(json_fault(p.dump()).path() == "ops[1].O.TT.D[1][1]");
    }
    (void)ops;
    // Not JSON, truncated JSON, JSON of the wrong shape.
    const auto text = prog.dump();
    for (const std::string& bad :
         {std::string("\x0a\x02\x08\x00", 4), text.substr(0, text.size() / 2), std::string("{}"),
          std::string("[1, 2]"), std::string("{\"base_code\": 3}"), std::string()}) {
        INFO("input: " << bad.substr(0, 40));
        auto e = test::expect_error<format_error>([&] { load_text(bad); });
        MESSAGE(std::string(e.what()));
    }
    auto trunc = test::expect_error<format_error>([&] { load_text(text.substr(0, 100)); });
    CHECK(std::string(trunc.what()).find("invalid JSON") != std::string::npos);
    CHECK(trunc.offset() == 100);
    // Nested deeper than the cap: an error, not a deep recursion.
    std::string deep =
        "{\"base_code\": " + std::string(100000, '[') + std::string(100000, ']') + "}";
    auto e = test::expect_error<format_error>([&] { load_text(deep); });
    CHECK(std::string(e.what()).find("nested deeper than") != std::string::npos);
}

TEST_CASE("PIR: parameter files are checked like the combined ones") {
    const auto alpha = iota({4, 3}, 0.05f), zeta = iota({3}, 0.2f);
    const auto text = affine_program().dump();
    auto good = affine_params(alpha, zeta);
    CHECK_THROWS_AS(load_text(text, good + "x", true), format_error);  // trailing byte
    CHECK_THROWS_AS(load_text(text, good.substr(0, good.size() - 1), true), format_error);
    std::string ints;
    paddle::append_record(ints, tensor(dtype::i64, {4, 3}));
    paddle::append_record(ints, zeta);
    auto e = test::expect_error<format_error>([&] { load_text(text, ints, true); });
    CHECK(std::string(e.what()).find("stored as int64, the program declares float32") !=
          std::string::npos);
    // Topology only: parameters keep their shapes, no values.
    auto m = load_text(text);
    CHECK(m.info.num_params == 0);
    CHECK(m.graph.vars[static_cast<std::size_t>(m.graph.find_var("alpha"))].shape == shape_t{4, 3});
    // A folder with inference.json but no parameter file.
    auto dir = test::scratch("pir_no_params");
    test::write_bytes(dir / "inference.json", text);
    CHECK_THROWS_AS(paddle::load(dir), io_error);
    test::write_bytes(dir / "inference.pdiparams", good);
    auto loaded = paddle::load(dir);
    CHECK(loaded.info.format == "pir-json");
    CHECK(loaded.info.num_params == 2);
}

TEST_CASE("PIR: control flow is read, checked and runs") {
    // if (x == 1) yield 2 * y else yield 3 * y, as the shared p2o_ifelse has it.
    auto i64 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_i64", d); };
    auto full = [&](std::int64_t id, double v) {
        return op("1.full", {}, {{id, i64({})}},
                  json::array({attr("shape", "1.a_intarray", json::array()),
                               attr("value", "0.a_f64", v), attr("dtype", "1.a_dtype", "int64")}));
    };
    auto branch = [&](std::int64_t base, std::int64_t ref) {
        return json{
            {"#", "region"},
            {"blocks",
             json::array({{{"#", "block"},
                           {"args", json::array()},
                           {"ops", json::array({full(base, 2.0), op("2.yield", {ref}, {})})}}})}};
    };
    auto if_op = op("1.if", {3}, {{4, i64({})}});
    if_op["regions"] = json::array({branch(10, 10), branch(11, 2)});
    auto text = program(json::array({data("x", 1, {}, "int64", "0.t_i64"),
                                     data("y", 2, {}, "int64", "0.t_i64"),
                                     op("1.equal", {1, 1}, {{3, tensor_type("0.t_bool", {})}}),
                                     if_op, fetch(4, 5, 0)}))
                    .dump();
    auto m = load_text(text);
    CHECK(m.info.op_counts.at("1.if") == 1);
    CHECK(m.info.op_counts.at("2.yield") == 2);
    CHECK(m.info.op_counts.at("1.full") == 2);  // nested ops are counted
    CHECK(m.info.num_blocks == 3);
    CHECK(m.info.op_types.at("1.if") == "if");
    CHECK(m.info.op_notes.count("1.if") == 0);
    CHECK(m.info.op_types.at("1.full").empty());
    REQUIRE(m.graph.sub_blocks.size() == 2);  // the if's two blocks, graphs of their own
    {
        // x == x: the first block, which yields its constant 2.
        runtime::program p(std::move(m.graph));
        tensor x(dtype::i64, {}), y(dtype::i64, {});
        x.span<std::int64_t>()[0] = 5;
        p.set_input("x", std::move(x));
        p.set_input("y", std::move(y));
        p.run();
        CHECK(p.output(0).span<std::int64_t>()[0] == 2);
    }
    // A region that reads a value defined after its op, or its own op's result.
    auto bad = if_op;
    bad["regions"][1]["blocks"][0]["ops"][1]["I"][0]["%"] = 4;
    auto t2 = program(json::array({data("x", 1, {}, "int64", "0.t_i64"),
                                   data("y", 2, {}, "int64", "0.t_i64"),
                                   op("1.equal", {1, 1}, {{3, tensor_type("0.t_bool", {})}}), bad,
                                   fetch(4, 5, 0)}))
                  .dump();
    auto f = json_fault(t2);
    CHECK(f.path() == "ops[3].regions[1].blocks[0].ops[1].I[0]");
}

TEST_CASE("PIR: unknown ops stay named; large constants are left to the runtime's caps") {
    auto text = program(json::array({data("x", 1, {-1, 4}),
                                     op("1.tril", {1}, {{2, tensor_type("0.t_f32", {-1, 4})}},
                                        json::array({attr("diagonal", "0.a_i32", 0)})),
                                     fetch(2, 3, 0)}))
                    .dump();
    auto m = load_text(text);
    CHECK(m.info.op_types.at("1.tril") == "1.tril");
    auto e = test::expect_error<unsupported_error>([&] { runtime::program p(std::move(m.graph)); });
    CHECK(std::string(e.what()).find("1.tril (x1)") != std::string::npos);
    // A 2^40-element 1.full is no allocation at load: a fill_constant the runtime rejects.
    auto big =
        program(json::array({data("x", 1, {1}),
                             op("1.full", {}, {{2, tensor_type("0.t_f32", {1099511627776})}},
                                json::array({attr("shape", "1.a_intarray", {1099511627776}),
                                             attr("value", "0.a_f64", 1.0),
                                             attr("dtype", "1.a_dtype", "float32")})),
                             op("1.add", {2, 1}, {{3, tensor_type("0.t_f32", {1099511627776})}}),
                             fetch(3, 4, 0)}))
            .dump();
    auto mb = load_text(big);
    CHECK(mb.info.op_types.at("1.full") == "fill_constant");
    runtime::program p(std::move(mb.graph));
    p.set_input("x", tensor(dtype::f32, {1}));
    CHECK_THROWS_AS(p.prepare_plan(), shape_error);
}

namespace {
json full(std::int64_t id, double v) {
    return op("1.full", {}, {{id, tensor_type("0.t_f32", {1})}},
              json::array({attr("shape", "1.a_intarray", {1}), attr("value", "0.a_f64", v),
                           attr("dtype", "1.a_dtype", "float32")}));
}
}  // namespace

TEST_CASE("PIR: layer_norm, stack, clip, prelu, gelu and the unary ops translate and run") {
    // stack([sqrt(abs(thresholded_relu(prelu(gelu(clip(layer_norm(x), -0.5, 0.8))))),
    //        floor(log(exp(x)) * 2)], axis 0)
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto text =
        program(
            json::array(
                {param("b", 1, f32({4})),
                 param("g", 2, f32({4})),
                 param("pa", 20, f32({1})),
                 data("x", 3, {-1, 4}),
                 op("1.layer_norm", {3, 2, 1}, {{4, f32({-1, 4})}, {5, f32({-1})}, {6, f32({-1})}},
                    json::array(
                        {attr("epsilon", "0.a_f32", 1e-5), attr("begin_norm_axis", "0.a_i32", 1)})),
                 full(7, -0.5),
                 full(8, 0.8),
                 op("1.clip", {4, 7, 8}, {{9, f32({-1, 4})}}),
                 op("1.gelu", {9}, {{10, f32({-1, 4})}},
                    json::array({attr("approximate", "0.a_bool", false)})),
                 op("1.prelu", {10, 20}, {{11, f32({-1, 4})}},
                    json::array(
                        {attr("data_format", "0.a_str", "NCHW"), attr("mode", "0.a_str", "all")})),
                 op("1.thresholded_relu", {11}, {{12, f32({-1, 4})}},
                    json::array(
                        {attr("threshold", "0.a_f32", -0.1), attr("value", "0.a_f32", 0.0)})),
                 op("1.abs", {12}, {{13, f32({-1, 4})}}),
                 op("1.sqrt", {13}, {{14, f32({-1, 4})}}),
                 op("1.exp", {3}, {{15, f32({-1, 4})}}),
                 op("1.log", {15}, {{16, f32({-1, 4})}}),
                 full(17, 2.0),
                 op("1.scale", {16, 17}, {{18, f32({-1, 4})}},
                    json::array({attr("bias", "0.a_f32", 0.0),
                                 attr("bias_after_scale", "0.a_bool", true)})),
                 op("1.floor", {18}, {{19, f32({-1, 4})}}),
                 op("0.combine", {14, 19},
                    {{21, {{"#", "0.t_vec"}, {"D", json::array({f32({-1, 4}), f32({-1, 4})})}}}}),
                 op("1.stack", {21}, {{22, f32({2, -1, 4})}},
                    json::array({attr("axis", "0.a_i32", 0)})),
                 fetch(22, 23, 0)}))
            .dump();
    const auto b = iota({4}, 0.1f), g = iota({4}, 0.5f);
    auto pa = tensor::from<float>({1}, std::vector<float>{0.25f});
    std::string params;
    paddle::append_record(params, b);  // "b" < "g" < "pa"
    paddle::append_record(params, g);
    paddle::append_record(params, pa);
    auto m = load_text(text, params, true);
    CHECK(unsupported_ops(m.info).empty());
    for (auto [pir, type] : {std::pair{"1.layer_norm", "layer_norm"},
                             {"1.stack", "stack"},
                             {"1.clip", "clip"},
                             {"1.prelu", "prelu"},
                             {"1.gelu", "gelu"},
                             {"1.thresholded_relu", "thresholded_relu"},
                             {"1.log", "log"},
                             {"1.floor", "floor"},
                             {"1.sqrt", "sqrt"},
                             {"1.abs", "abs"}})
        CHECK(m.info.op_types.at(pir) == type);
    runtime::program p(std::move(m.graph));
    const auto x = iota({3, 4}, 0.37f);
    p.set_input("x", x);
    p.run();
    const auto& got = p.output(0);
    REQUIRE(got.shape == shape_t{2, 3, 4});
    // The same by plain loops.
    auto xs = x.span<float>();
    std::vector<float> expect(24);
    for (std::size_t r = 0; r < 3; ++r) {
        double mean = 0, var = 0;
        for (std::size_t i = 0; i < 4; ++i) mean += xs[r * 4 + i] / 4.0;
        for (std::size_t i = 0; i < 4; ++i)
            var += (xs[r * 4 + i] - mean) * (xs[r * 4 + i] - mean) / 4.0;
        for (std::size_t i = 0; i < 4; ++i) {
            double v = (xs[r * 4 + i] - mean) / std::sqrt(var + 1e-5) * g.span<float>()[i] +
                       b.span<float>()[i];
            v = std::min(std::max(v, -0.5), 0.8);
            v = 0.5 * v * (1 + std::erf(v / std::sqrt(2.0)));
            v = v > 0 ? v : 0.25 * v;
            v = v > -0.1 ? v : 0.0;
            expect[r * 4 + i] = float(std::sqrt(std::fabs(v)));
            expect[12 + r * 4 + i] =
                float(std::floor(std::log(std::exp(double(xs[r * 4 + i]))) * 2));
        }
    }
    CHECK(test::max_abs_diff(got.span<float>(), expect) <= 1e-5);
}

TEST_CASE("PIR: a clip bound that is not a constant stays an input") {
    auto text = program(json::array({data("x", 1, {2, 3}), data("lo", 2, {1}), full(3, 0.5),
                                     op("1.clip", {1, 2, 3}, {{4, tensor_type("0.t_f32", {2, 3})}}),
                                     fetch(4, 5, 0)}))
                    .dump();
    auto m = load_text(text);
    CHECK(m.info.op_types.at("1.clip") == "clip");
    runtime::program p(std::move(m.graph));
    const auto x = iota({2, 3}, 0.2f);  // -0.3 .. 0.7
    p.set_input("x", x);
    p.set_input("lo", tensor::from<float>({1}, std::vector<float>{-0.1f}));
    p.run();
    std::vector<float> expect;
    for (float v : x.span<float>()) expect.push_back(std::min(std::max(v, -0.1f), 0.5f));
    CHECK(test::max_abs_diff(p.output(0).span<float>(), expect) == 0);
}

TEST_CASE("litegraph info, run, quantize and codegen take the PIR classifier") {
    auto dir = test::shared_model("pp_lcnet_x0_25_textline_ori_pir");
    if (dir.empty()) return;
    auto info = test::run_cli("info '" + dir.string() + "'");
    CHECK(info.code == 0);
    CHECK(info.out.find("format:      pir-json") != std::string::npos);
    CHECK(info.out.find("unsupported") == std::string::npos);
    auto out = test::scratch("pir_cli");
    auto run = test::run_cli("run '" + dir.string() + "' --input x='" +
                             (dir / "reference" / "input_x.npy").string() + "' --output-dir '" +
                             out.string() + "'");
    REQUIRE(run.code == 0);
    auto got = load_npy(out / "output_0.npy");
    auto expect = load_npy(dir / "reference" / "output_0.npy");
    CHECK(test::max_abs_diff(got.span<float>(), expect.span<float>()) <= 1e-5);
    // Calibrated on random inputs, run on the reference lines: the classes hold.
    auto q = test::run_cli("quantize '" + dir.string() + "' -o '" + (out / "int8").string() +
                           "' --calib-random 4 --shape x=1,3,80,160 --quiet");
    INFO(q.out);
    REQUIRE(q.code == 0);
    CHECK(q.out.find("output error") != std::string::npos);
    auto qrun = test::run_cli("run '" + (out / "int8").string() + "' --input x='" +
                              (dir / "reference" / "input_x.npy").string() +
                              "' --json --output-dir '" + (out / "int8_out").string() + "'");
    REQUIRE(qrun.code == 0);
    auto j = json::parse(qrun.out.substr(qrun.out.find('{')));
    CHECK(j["kernels"]["int8"].get<int>() > 0);
    auto got8 = load_npy(out / "int8_out" / "output_0.npy");
    REQUIRE(got8.shape() == expect.shape());
    const auto p8 = got8.span<float>(), pe = expect.span<float>();
    for (std::size_t row = 0; row < 6; ++row)
        CHECK((p8[2 * row] > p8[2 * row + 1]) == (pe[2 * row] > pe[2 * row + 1]));
    CHECK(test::max_abs_diff(p8, pe) <= 0.05);
    auto cg = test::run_cli("codegen '" + dir.string() + "' -o '" + (out / "net.hpp").string() +
                            "' --shape x=1,3,80,160");
    INFO(cg.out);
    CHECK(cg.code == 0);
    CHECK(fs::file_size(out / "net.hpp") > 100000);
}

TEST_CASE("PIR: conv3d and pool3d (kernel_size an attribute) translate and run") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto ints = [](std::vector<std::int64_t> v) {
        json a = json::array();
        for (auto x : v) a.push_back({{"#", "0.a_i32"}, {"D", x}});
        return a;
    };
    auto text =
        program(json::array({param("f", 1, f32({2, 1, 2, 2, 2})), data("x", 2, {1, 1, 3, 4, 4}),
                             op("1.conv3d", {2, 1}, {{3, f32({1, 2, 4, 3, 5})}},
                                json::array({attr("strides", "0.a_array", ints({1, 1, 1})),
                                             attr("paddings", "0.a_array", ints({1, 0, 1})),
                                             attr("padding_algorithm", "0.a_str", "EXPLICIT"),
                                             attr("groups", "0.a_i32", 1),
                                             attr("dilations", "0.a_array", ints({1, 1, 1})),
                                             attr("data_format", "0.a_str", "NCDHW")})),
                             op("1.pool3d", {3}, {{4, f32({1, 2, 2, 2, 3})}},
                                json::array({attr("kernel_size", "0.a_array", ints({2, 2, 3})),
                                             attr("strides", "0.a_array", ints({2, 2, 2})),
                                             attr("paddings", "0.a_array", ints({0, 0, 1})),
                                             attr("ceil_mode", "0.a_bool", true),
                                             attr("exclusive", "0.a_bool", false),
                                             attr("data_format", "0.a_str", "NCDHW"),
                                             attr("pooling_type", "0.a_str", "avg"),
                                             attr("global_pooling", "0.a_bool", false),
                                             attr("adaptive", "0.a_bool", false),
                                             attr("padding_algorithm", "0.a_str", "EXPLICIT")})),
                             fetch(4, 5, 0)}))
            .dump();
    const auto f = iota({2, 1, 2, 2, 2}, 0.11f);
    std::string params;
    paddle::append_record(params, f);
    auto m = load_text(text, params, true);
    CHECK(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.conv3d") == "conv3d");
    CHECK(m.info.op_types.at("1.pool3d") == "pool3d");
    runtime::program p(std::move(m.graph));
    const auto x = iota({1, 1, 3, 4, 4}, 0.07f);
    p.set_input("x", x);
    p.run();
    // The same two ops invoked with the attributes the PIR ones carry.
    attr_map ca;
    ca.set("paddings", std::vector<std::int64_t>{1, 0, 1});
    auto c =
        invoke("conv3d", ca, named_tensors{}.add("Input", x).add("Filter", f), {{"Output", 1}});
    attr_map pa;
    pa.set("pooling_type", std::string("avg"));
    pa.set("ksize", std::vector<std::int64_t>{2, 2, 3});
    pa.set("strides", std::vector<std::int64_t>{2, 2, 2});
    pa.set("paddings", std::vector<std::int64_t>{0, 0, 1});
    pa.set("ceil_mode", true);
    pa.set("exclusive", false);
    auto want = invoke("pool3d", pa, named_tensors{}.add("X", c.get("Output")), {{"Out", 1}});
    REQUIRE(p.output(0).shape == want.get("Out").shape());
    CHECK(test::max_abs_diff(p.output(0).span<float>(), want.get("Out").span<float>()) == 0);
}

TEST_CASE("PIR: split, topk, argsort and tile translate and run") {
    // split(x [3, 6], sections [2, -1], axis 1) -> a [3, 2], b [3, 4];
    // topk(a, k 1), argsort(b, descending), tile(x, [2, 1]).
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    const auto i64 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_i64", d); };
    auto ints = [&](std::int64_t id, std::vector<std::int64_t> v) {
        return op(
            "1.full_int_array", {}, {{id, i64({std::int64_t(v.size())})}},
            json::array({attr("value", "1.a_intarray", v), attr("dtype", "1.a_dtype", "int64")}));
    };
    auto one = [&](std::int64_t id, double v) {
        return op("1.full", {}, {{id, tensor_type("0.t_i32", {1})}},
                  json::array({attr("shape", "1.a_intarray", {1}), attr("value", "0.a_f64", v),
                               attr("dtype", "1.a_dtype", "int32")}));
    };
    auto text =
        program(
            json::array(
                {data("x", 1, {3, 6}), ints(2, {2, -1}), one(3, 1),
                 op("1.split", {1, 2, 3},
                    {{4, {{"#", "0.t_vec"}, {"D", json::array({f32({3, 2}), f32({3, 4})})}}}}),
                 op("0.split", {4}, {{5, f32({3, 2})}, {6, f32({3, 4})}}), one(7, 1),
                 op("1.topk", {5, 7}, {{8, f32({3, 1})}, {9, i64({3, 1})}},
                    json::array({attr("axis", "0.a_i32", -1), attr("largest", "0.a_bool", true),
                                 attr("sorted", "0.a_bool", true)})),
                 op("1.argsort", {6}, {{10, f32({3, 4})}, {11, i64({3, 4})}},
                    json::array({attr("axis", "0.a_i32", -1), attr("descending", "0.a_bool", true),
                                 attr("stable", "0.a_bool", false)})),
                 ints(12, {2, 1}), op("1.tile", {1, 12}, {{13, f32({6, 6})}}), fetch(8, 14, 0),
                 fetch(10, 15, 1), fetch(13, 16, 2)}))
            .dump();
    auto m = load_text(text);
    CHECK(unsupported_ops(m.info).empty());
    for (auto [pir, type] : {std::pair{"1.split", "split"},
                             {"1.topk", "top_k_v2"},
                             {"1.argsort", "argsort"},
                             {"1.tile", "tile"}})
        CHECK(m.info.op_types.at(pir) == type);
    runtime::program p(std::move(m.graph));
    const auto x = iota({3, 6}, 0.37f);
    p.set_input("x", x);
    p.run();
    auto xs = x.span<float>();
    std::vector<float> top, sorted, tiled;
    for (std::size_t r = 0; r < 3; ++r) {
        top.push_back(std::max(xs[r * 6], xs[r * 6 + 1]));
        std::vector<float> row(xs.begin() + long(r * 6 + 2), xs.begin() + long(r * 6 + 6));
        std::sort(row.begin(), row.end(), std::greater<>());
        sorted.insert(sorted.end(), row.begin(), row.end());
    }
    for (int k = 0; k < 2; ++k) tiled.insert(tiled.end(), xs.begin(), xs.end());
    REQUIRE(p.output(0).shape == shape_t{3, 1});
    CHECK(test::max_abs_diff(p.output(0).span<float>(), top) == 0);
    REQUIRE(p.output(1).shape == shape_t{3, 4});
    CHECK(test::max_abs_diff(p.output(1).span<float>(), sorted) == 0);
    REQUIRE(p.output(2).shape == shape_t{6, 6});
    CHECK(test::max_abs_diff(p.output(2).span<float>(), tiled) == 0);
}

namespace {
/// x [2, 3] -> one PIR op (with `attrs`) -> fetch: the op type it became and its output.
std::pair<std::string, tensor> run_unary_pir(const std::string& name, json attrs, const tensor& x) {
    auto text =
        program(json::array({data("x", 1, {2, 3}),
                             op(name, {1}, {{2, tensor_type("0.t_f32", {2, 3})}}, std::move(attrs)),
                             fetch(2, 3, 0)}))
            .dump();
    auto m = load_text(text);
    REQUIRE(unsupported_ops(m.info).empty());
    std::string type = m.info.op_types.at(name);
    runtime::program p(std::move(m.graph));
    p.set_input("x", x);
    p.run();
    const auto& got = p.output(0);
    tensor out(dtype::f32, got.shape);
    auto gs = got.span<float>();
    std::copy(gs.begin(), gs.end(), out.span<float>().begin());
    return {type, std::move(out)};
}
}  // namespace

TEST_CASE("PIR: the unary ops of issue 17 translate with their attributes and run") {
    const auto x = iota({2, 3}, 0.7f);  // -0.3 .. 3.2
    struct one_case {
        const char* pir;
        const char* type;
        json attrs;
        double (*ref)(double);
    };
    const std::vector<one_case> cases{
        {"1.mish", "mish", json::array({attr("lambda", "0.a_f32", 1.0)}),
         [](double v) { return v * std::tanh(v > 1.0 ? v : std::log1p(std::exp(v))); }},
        {"1.softplus", "softplus",
         json::array({attr("beta", "0.a_f32", 2.0), attr("threshold", "0.a_f32", 3.0)}),
         [](double v) { return 2 * v > 3.0 ? v : std::log1p(std::exp(2 * v)) / 2; }},
        {"1.softsign", "softsign", json::array(), [](double v) { return v / (1 + std::fabs(v)); }},
        {"1.hardtanh", "hardtanh",
         json::array({attr("t_min", "0.a_f32", 0.5), attr("t_max", "0.a_f32", 2.0)}),
         [](double v) { return std::min(std::max(v, 0.5), 2.0); }},
        {"1.square", "square", json::array(), [](double v) { return v * v; }},
        {"1.sin", "sin", json::array(), [](double v) { return std::sin(v); }},
        {"1.cos", "cos", json::array(), [](double v) { return std::cos(v); }},
        {"1.erf", "erf", json::array(), [](double v) { return std::erf(v); }},
        {"1.pow", "pow", json::array({attr("y", "0.a_f32", 2.0)}), [](double v) { return v * v; }},
        {"1.log_softmax", "log_softmax", json::array({attr("axis", "0.a_i32", 0)}), nullptr},
    };
    for (const auto& c : cases) {
        CAPTURE(c.pir);
        auto [type, out] = run_unary_pir(c.pir, c.attrs, x);
        CHECK(type == c.type);
        REQUIRE(out.shape() == shape_t{2, 3});
        std::vector<float> expect(6);
        auto xs = x.span<float>();
        for (std::size_t i = 0; i < 6; ++i) {
            if (c.ref) {
                expect[i] = static_cast<float>(c.ref(xs[i]));
            } else {  // log_softmax along axis 0 (attribute read)
                const std::size_t col = i % 3;
                expect[i] = static_cast<float>(
                    xs[i] - std::log(std::exp(double(xs[col])) + std::exp(double(xs[col + 3]))));
            }
        }
        CHECK(test::max_abs_diff(out.span<float>(), expect) <= 2e-6);
    }
    // rsqrt on positive values.
    auto pos = iota({2, 3}, 0.5f);
    for (auto& v : pos.span<float>()) v += 1.f;
    auto [type, out] = run_unary_pir("1.rsqrt", json::array(), pos);
    CHECK(type == "rsqrt");
    std::vector<float> expect;
    for (float v : pos.span<float>()) expect.push_back(float(1 / std::sqrt(double(v))));
    CHECK(test::max_rel_diff(out.span<float>(), expect) <= 1e-6);
}

TEST_CASE("PIR: the name table is derived from the ops' traits; every name translates") {
    const auto& entries = paddle::pir::op_entries();
    std::set<std::string_view> names;
    const auto types = supported_op_types<builtin_ops>();
    for (const auto& e : entries) {
        CAPTURE(e.name);
        CHECK(names.insert(e.name).second);  // one op per PIR name
        CHECK(paddle::pir::detail::reader::translates(e.name));
        if (!e.type.empty()) CHECK(std::find(types.begin(), types.end(), e.type) != types.end());
        if (e.form != pir_form::unary) CHECK(e.attrs.empty());
    }
    CHECK(paddle::pir::op_table().size() == entries.size());
    // An activation's PIR name is its functor's pir_type; its attributes its pir_attrs.
    CHECK(paddle::pir::translated_type(ops::act::hard_swish::pir_type) ==
          ops::act::hard_swish::paddle_type);
    CHECK(paddle::pir::translated_type(std::string(ops::act::relu::pir_type) + "_") ==
          ops::act::relu::paddle_type);  // the in-place variant
    CHECK(!paddle::pir::translated_type(ops::act::brelu::paddle_type));
    const auto* leaky = paddle::pir::find_entry(ops::act::leaky_relu::pir_type);
    REQUIRE(leaky);
    CHECK(leaky->form == pir_form::unary);
    REQUIRE(leaky->attrs.size() == 1);
    CHECK(leaky->attrs[0].as == "alpha");
    // The attribute renamed on the way in: x < 0 scaled by negative_slope.
    const auto x = iota({2, 3}, 0.7f);  // -0.3 .. 3.2
    auto [type, out] = run_unary_pir(std::string(ops::act::leaky_relu::pir_type),
                                     json::array({attr("negative_slope", "0.a_f32", 0.25)}), x);
    CHECK(type == ops::act::leaky_relu::paddle_type);
    CHECK(out.span<float>()[0] == x.span<float>()[0] * 0.25f);
    CHECK(out.span<float>()[5] == x.span<float>()[5]);
    // A unary op reads only the attributes it declares: hardswish's PIR op has
    // none, so a stray "threshold" does not reach hard_swish.
    auto [hs_type, hs] = run_unary_pir(std::string(ops::act::hard_swish::pir_type),
                                       json::array({attr("threshold", "0.a_f32", 1.0)}), x);
    CHECK(hs_type == ops::act::hard_swish::paddle_type);
    const float x5 = x.span<float>()[5];
    CHECK(hs.span<float>()[5] == ops::act::hard_swish{}(x5));
}

TEST_CASE("PIR: comparisons and logical ops translate to bool results") {
    // logical_xor(less_than(x, y), logical_not(equal(x, y))) == (x > y) with numpy broadcasting
    const auto b = [](std::vector<std::int64_t> d) { return tensor_type("0.t_bool", d); };
    auto text = program(json::array({data("x", 1, {2, 3}), data("y", 2, {3}),
                                     op("1.less_than", {1, 2}, {{3, b({2, 3})}}),
                                     op("1.equal", {1, 2}, {{4, b({2, 3})}}),
                                     op("1.logical_not", {4}, {{5, b({2, 3})}}),
                                     op("1.logical_xor", {3, 5}, {{6, b({2, 3})}}),
                                     op("1.greater_equal", {1, 2}, {{7, b({2, 3})}}),
                                     op("1.logical_and", {6, 7}, {{8, b({2, 3})}}),
                                     op("1.not_equal", {1, 2}, {{9, b({2, 3})}}),
                                     op("1.less_equal", {1, 2}, {{10, b({2, 3})}}),
                                     op("1.logical_or", {9, 10}, {{11, b({2, 3})}}),
                                     op("1.greater_than", {1, 2}, {{12, b({2, 3})}}),
                                     fetch(8, 13, 0), fetch(11, 14, 1), fetch(12, 15, 2)}))
                    .dump();
    auto m = load_text(text);
    CHECK(unsupported_ops(m.info).empty());
    for (auto n : {"equal", "not_equal", "less_than", "less_equal", "greater_than", "greater_equal",
                   "logical_and", "logical_or", "logical_xor", "logical_not"})
        CHECK(m.info.op_types.at(std::string("1.") + n) == n);
    runtime::program p(std::move(m.graph));
    auto x = tensor::from<float>({2, 3}, std::vector<float>{1, 2, 3, 3, 2, 1});
    auto y = tensor::from<float>({3}, std::vector<float>{2, 2, 2});
    p.set_input("x", x);
    p.set_input("y", y);
    p.run();
    std::vector<bool> gt, all_true(6, true);
    for (std::size_t i = 0; i < 6; ++i) gt.push_back(x.span<float>()[i] > 2.f);
    auto as_vec = [](const tensor_ref& t) {
        REQUIRE(t.type == dtype::boolean);
        auto s = t.span<bool>();
        return std::vector<bool>(s.begin(), s.end());
    };
    // (x < y) xor !(x == y) is x > y, and so is that and (x >= y); (x != y) or (x <= y) holds.
    CHECK(as_vec(p.output(0)) == gt);
    CHECK(as_vec(p.output(1)) == all_true);
    CHECK(as_vec(p.output(2)) == gt);
}

TEST_CASE("PIR: floor_divide and remainder translate to elementwise_floordiv and _mod") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto text = program(json::array({data("x", 1, {2, 3}), data("y", 2, {3}),
                                     op("1.floor_divide", {1, 2}, {{3, f32({2, 3})}}),
                                     op("1.remainder", {1, 2}, {{4, f32({2, 3})}}), fetch(3, 5, 0),
                                     fetch(4, 6, 1)}))
                    .dump();
    auto m = load_text(text);
    CHECK(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.floor_divide") == "elementwise_floordiv");
    CHECK(m.info.op_types.at("1.remainder") == "elementwise_mod");
    runtime::program p(std::move(m.graph));
    auto x = tensor::from<float>({2, 3}, std::vector<float>{-7.5f, 7.5f, 5.f, 3.f, -1.f, 0.5f});
    auto y = tensor::from<float>({3}, std::vector<float>{2.f, -2.f, 2.5f});
    p.set_input("x", x);
    p.set_input("y", y);
    p.run();
    auto q = p.output(0).span<float>();
    auto r = p.output(1).span<float>();
    CHECK(std::vector<float>(q.begin(), q.end()) == std::vector<float>{-4, -4, 2, 1, 0, 0});
    CHECK(std::vector<float>(r.begin(), r.end()) ==
          std::vector<float>{0.5f, -0.5f, 0, 1, -1, 0.5f});
}

namespace {
json int_array(std::int64_t id, std::vector<std::int64_t> v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return op("1.full_int_array", {}, {{id, tensor_type("0.t_i64", {n})}},
              json::array({attr("value", "1.a_intarray", std::move(v)),
                           attr("dtype", "1.a_dtype", "int64")}));
}
}  // namespace

TEST_CASE("PIR: sum, mean, max, prod, any and p_norm translate to the reductions") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto text =
        program(
            json::array({data("x", 1, {2, 3, 4}), int_array(2, {1}), int_array(3, {}),
                         int_array(4, {-1}),
                         op("1.sum", {1, 2}, {{5, f32({2, 4})}},
                            json::array({attr("dtype", "1.a_dtype", "float32"),
                                         attr("keepdim", "0.a_bool", false)})),
                         op("1.mean", {1, 3}, {{6, f32({})}},
                            json::array({attr("keepdim", "0.a_bool", false)})),
                         op("1.max", {1, 4}, {{7, f32({2, 3, 1})}},
                            json::array({attr("keepdim", "0.a_bool", true)})),
                         op("1.prod", {1, 2}, {{8, f32({2, 4})}},
                            json::array({attr("keep_dim", "0.a_bool", false),
                                         attr("reduce_all", "0.a_bool", false)})),
                         op("1.p_norm", {1}, {{9, f32({3, 4})}},
                            json::array({attr("porder", "0.a_f32", 2.0), attr("axis", "0.a_i32", 0),
                                         attr("epsilon", "0.a_f32", 1e-12),
                                         attr("keepdim", "0.a_bool", false),
                                         attr("asvector", "0.a_bool", false)})),
                         fetch(5, 10, 0), fetch(6, 11, 1), fetch(7, 12, 2), fetch(8, 13, 3),
                         fetch(9, 14, 4)}))
            .dump();
    auto m = load_text(text);
    CHECK(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.sum") == "reduce_sum");
    CHECK(m.info.op_types.at("1.mean") == "reduce_mean");
    CHECK(m.info.op_types.at("1.max") == "reduce_max");
    CHECK(m.info.op_types.at("1.prod") == "reduce_prod");
    CHECK(m.info.op_types.at("1.p_norm") == "p_norm");
    runtime::program p(std::move(m.graph));
    const auto x = iota({2, 3, 4}, 0.1f);
    p.set_input("x", x);
    p.run();
    auto xs = x.span<float>();
    auto at = [&](std::size_t a, std::size_t b, std::size_t c) {
        return double(xs[(a * 3 + b) * 4 + c]);
    };
    REQUIRE(p.output(0).shape == shape_t{2, 4});
    REQUIRE(p.output(1).shape == shape_t{});
    REQUIRE(p.output(2).shape == shape_t{2, 3, 1});
    REQUIRE(p.output(4).shape == shape_t{3, 4});
    double total = 0;
    for (std::size_t a = 0; a < 2; ++a)
        for (std::size_t c = 0; c < 4; ++c) {
            double s = 0, pr = 1;
            for (std::size_t b = 0; b < 3; ++b) {
                s += at(a, b, c);
                pr *= at(a, b, c);
            }
            total += s;
            CHECK(p.output(0).span<float>()[a * 4 + c] == doctest::Approx(s).epsilon(1e-6));
            CHECK(p.output(3).span<float>()[a * 4 + c] == doctest::Approx(pr).epsilon(1e-6));
        }
    CHECK(p.output(1).span<float>()[0] == doctest::Approx(total / 24).epsilon(1e-6));
    for (std::size_t a = 0; a < 2; ++a)
        for (std::size_t b = 0; b < 3; ++b)
            CHECK(p.output(2).span<float>()[a * 3 + b] == float(at(a, b, 3)));
    for (std::size_t b = 0; b < 3; ++b)
        for (std::size_t c = 0; c < 4; ++c)
            CHECK(p.output(4).span<float>()[b * 4 + c] ==
                  doctest::Approx(std::hypot(at(0, b, c), at(1, b, c))).epsilon(1e-6));
}

TEST_CASE("PIR: cumsum translates with its constant axis") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto text = program(json::array({data("x", 1, {2, 3}), full(2, 0.0),
                                     op("1.cumsum", {1, 2}, {{3, f32({2, 3})}},
                                        json::array({attr("flatten", "0.a_bool", false),
                                                     attr("exclusive", "0.a_bool", true),
                                                     attr("reverse", "0.a_bool", true)})),
                                     fetch(3, 4, 0)}))
                    .dump();
    auto m = load_text(text);
    CHECK(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.cumsum") == "cumsum");
    runtime::program p(std::move(m.graph));
    p.set_input("x", tensor::from<float>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6}));
    p.run();
    auto o = p.output(0).span<float>();
    // axis 0, exclusive, reverse: row 0 gets row 1, row 1 gets 0.
    CHECK(std::vector<float>(o.begin(), o.end()) == std::vector<float>{4, 5, 6, 0, 0, 0});
}

TEST_CASE("PIR: where translates with its three operands") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto text =
        program(json::array({data("x", 1, {2, 3}), data("y", 2, {3}),
                             op("1.greater_than", {1, 2}, {{3, tensor_type("0.t_bool", {2, 3})}}),
                             op("1.where", {3, 1, 2}, {{4, f32({2, 3})}}), fetch(4, 5, 0)}))
            .dump();
    auto m = load_text(text);
    CHECK(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.where") == "where");
    runtime::program p(std::move(m.graph));
    p.set_input("x", tensor::from<float>({2, 3}, std::vector<float>{1, 5, 3, 4, 0, 6}));
    p.set_input("y", tensor::from<float>({3}, std::vector<float>{2, 2, 2}));
    p.run();
    auto o = p.output(0).span<float>();
    CHECK(std::vector<float>(o.begin(), o.end()) == std::vector<float>{2, 5, 3, 4, 2, 6});
}

TEST_CASE("PIR: 1.rnn (lists of states and weights) translates and gives what rnn gives") {
    // A bidirectional one-layer GRU, H 2, I 3, over x [3, 2, 3] with h0 and
    // sequence lengths fed; fetches Out and the final state (0.split of State).
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    const std::vector<shape_t> wshapes{{6, 3}, {6, 2}, {6, 3}, {6, 2}, {6}, {6}, {6}, {6}};
    json ops = json::array();
    std::vector<std::int64_t> wids;
    std::string params;
    std::vector<tensor> weights;
    for (std::size_t i = 0; i < wshapes.size(); ++i) {
        const auto id = static_cast<std::int64_t>(10 + i);
        ops.push_back(param("w" + std::to_string(i), id,
                            f32(std::vector<std::int64_t>(wshapes[i].begin(), wshapes[i].end()))));
        weights.push_back(iota(wshapes[i], 0.05f + 0.01f * static_cast<float>(i)));
        paddle::append_record(params, weights.back());  // "w0" < "w1" < ... < "w7"
        wids.push_back(id);
    }
    ops.push_back(data("x", 1, {3, 2, 3}));
    ops.push_back(data("h0", 2, {2, 2, 2}));
    ops.push_back(
        op("1.data", {}, {{3, tensor_type("0.t_i32", {2})}},
           json::array({attr("name", "0.a_str", "len"), attr("shape", "1.a_intarray", {2}),
                        attr("dtype", "1.a_dtype", "int32")})));
    const json vec1{{"#", "0.t_vec"}, {"D", json::array({f32({2, 2, 2})})}};
    json wvec{{"#", "0.t_vec"}, {"D", json::array()}};
    for (auto& s : wshapes) wvec["D"].push_back(f32(std::vector<std::int64_t>(s.begin(), s.end())));
    ops.push_back(op("0.combine", {2}, {{4, vec1}}));
    ops.push_back(op("0.combine", wids, {{5, wvec}}));
    ops.push_back(
        op("1.rnn", {1, 4, 5, 3, 0},
           {{6, f32({3, 2, 4})},
            {7, tensor_type("0.t_ui8", {3, 2, 4})},
            {8, vec1},
            {9, tensor_type("0.t_ui8", {1})}},
           json::array({attr("dropout_prob", "0.a_f32", 0.0), attr("is_bidirec", "0.a_bool", true),
                        attr("input_size", "0.a_i32", 3), attr("hidden_size", "0.a_i32", 2),
                        attr("num_layers", "0.a_i32", 1), attr("mode", "0.a_str", "GRU"),
                        attr("seed", "0.a_i32", 0), attr("is_test", "0.a_bool", true)})));
    ops.push_back(op("0.split", {8}, {{20, f32({2, 2, 2})}}));
    ops.push_back(fetch(6, 21, 0));
    ops.push_back(fetch(20, 22, 1));
    auto m = load_text(program(ops).dump(), params, true);
    CHECK(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.rnn") == "rnn");
    runtime::program p(std::move(m.graph));
    const auto x = iota({3, 2, 3}, 0.11f), h0 = iota({2, 2, 2}, 0.07f);
    const auto len = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{2, 3});
    p.set_input("x", x);
    p.set_input("h0", h0);
    p.set_input("len", len);
    p.run();
    named_tensors in;
    in.add("Input", x).add("PreState", h0).add("SequenceLength", len);
    for (auto& w : weights) in.add("WeightList", w);
    attr_map a;
    a.set("mode", std::string("GRU"));
    a.set("is_bidirec", true);
    a.set("hidden_size", std::int32_t{2});
    auto want = invoke("rnn", a, in, {{"Out", 1}, {"State", 1}});
    REQUIRE(p.output(0).shape == shape_t{3, 2, 4});
    REQUIRE(p.output(1).shape == shape_t{2, 2, 2});
    CHECK(test::max_abs_diff(p.output(0).span<float>(), want.get("Out").span<float>()) == 0);
    CHECK(test::max_abs_diff(p.output(1).span<float>(), want.get("State").span<float>()) == 0);
    // Out is zero past sequence 0's length 2.
    for (std::size_t k = 0; k < 4; ++k) CHECK(p.output(0).span<float>()[16 + k] == 0.f);
}

TEST_CASE("PIR: channel_shuffle translates with groups and runs as the op does") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto text = program(json::array({data("x", 1, {1, 6, 2, 2}),
                                     op("1.channel_shuffle", {1}, {{2, f32({1, 6, 2, 2})}},
                                        json::array({attr("groups", "0.a_i32", 3),
                                                     attr("data_format", "0.a_str", "NCHW")})),
                                     fetch(2, 3, 0)}))
                    .dump();
    auto m = load_text(text);
    REQUIRE(unsupported_ops(m.info).empty());
    CHECK(m.info.op_types.at("1.channel_shuffle") == "channel_shuffle");
    runtime::program p(std::move(m.graph));
    const auto x = iota({1, 6, 2, 2}, 1.0f);
    p.set_input("x", x);
    p.run();
    attr_map a;
    a.set("groups", 3);
    auto want = invoke("channel_shuffle", a, named_tensors{}.add("X", x), {{"Out", 1}});
    REQUIRE(p.output(0).shape == shape_t{1, 6, 2, 2});
    CHECK(test::max_abs_diff(p.output(0).span<float>(), want.get("Out").span<float>()) == 0);
    // Channel 1 of the output is input channel 2 (groups of two channels, 3 groups).
    CHECK(p.output(0).span<float>()[4] == x.span<float>()[8]);
}

TEST_CASE("PIR: assign_value_ folds into a constant of its shape, dtype and values") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    auto values = [](std::vector<double> v) {
        json a = json::array();
        for (double x : v) a.push_back({{"#", "0.a_f64"}, {"D", x}});
        return json{{"#", "0.a_array"}, {"D", a}};
    };
    auto text_with = [&](std::vector<double> v) {
        json assign = op("1.assign_value_", {1}, {{2, f32({2})}},
                         json::array({attr("shape", "1.a_intarray", {2}),
                                      attr("dtype", "1.a_dtype", "float32")}));
        assign["A"].push_back({{"AT", values(std::move(v))}, {"N", "values"}});
        return program(json::array({data("x", 1, {2}), assign, op("1.add", {1, 2}, {{3, f32({2})}}),
                                    fetch(3, 4, 0)}))
            .dump();
    };
    auto m = load_text(text_with({0.5, -2}));
    REQUIRE(unsupported_ops(m.info).empty());
    runtime::program p(std::move(m.graph));
    p.set_input("x", tensor::from<float>({2}, std::vector<float>{1, 1}));
    p.run();
    CHECK(test::max_abs_diff(p.output(0).span<float>(), std::vector<float>{1.5f, -1}) == 0);
    auto e = test::expect_error<json_error>([&] { load_text(text_with({1, 2, 3})); });
    CHECK(std::string(e.what()).find("1.assign_value of shape [2] has 3 values") !=
          std::string::npos);
}

TEST_CASE("PIR: full_like, full_batch_size_like, arange, affine_channel, density_prior_box") {
    const auto f32 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_f32", d); };
    const auto i64 = [](std::vector<std::int64_t> d) { return tensor_type("0.t_i64", d); };
    auto full = [&](std::int64_t id, std::vector<std::int64_t> shape, double v,
                    const std::string& dt) {
        return op("1.full", {}, {{id, tensor_type(dt == "int64" ? "0.t_i64" : "0.t_f32", shape)}},
                  json::array({attr("shape", "1.a_intarray", shape), attr("value", "0.a_f64", v),
                               attr("dtype", "1.a_dtype", dt)}));
    };
    json img =
        op("1.data", {}, {{20, f32({1, 3, 8, 8})}},
           json::array({attr("name", "0.a_str", "img"), attr("shape", "1.a_intarray", {1, 3, 8, 8}),
                        attr("dtype", "1.a_dtype", "float32")}));
    auto text =
        program(
            json::array(
                {data("y", 1, {1, 2, 2, 2}), img, full(2, {1}, 1.5, "float32"),
                 op("1.full_like", {1, 2}, {{3, f32({1, 2, 2, 2})}},
                    json::array({attr("dtype", "1.a_dtype", "float32")})),
                 op("1.full_batch_size_like", {1}, {{4, f32({1, 4})}},
                    json::array({attr("shape", "1.a_intarray", {-1, 4}),
                                 attr("dtype", "1.a_dtype", "float32"),
                                 attr("value", "0.a_f32", 0.5), attr("input_dim_idx", "0.a_i32", 0),
                                 attr("output_dim_idx", "0.a_i32", 0)})),
                 full(5, {1}, 0, "int64"), full(6, {1}, 5, "int64"), full(7, {1}, 2, "int64"),
                 op("1.arange", {5, 6, 7}, {{8, i64({3})}},
                    json::array({attr("dtype", "1.a_dtype", "int64")})),
                 full(9, {2}, 2.0, "float32"), full(10, {2}, -1.0, "float32"),
                 op("1.affine_channel", {1, 9, 10}, {{11, f32({1, 2, 2, 2})}},
                    json::array({attr("data_layout", "0.a_str", "NCHW")})),
                 op("1.density_prior_box", {1, 20},
                    {{12, f32({2, 2, 4, 4})}, {13, f32({2, 2, 4, 4})}},
                    json::array({attr("variances", "0.a_array",
                                      json::array({{{"#", "0.a_f32"}, {"D", 0.1}},
                                                   {{"#", "0.a_f32"}, {"D", 0.1}},
                                                   {{"#", "0.a_f32"}, {"D", 0.2}},
                                                   {{"#", "0.a_f32"}, {"D", 0.2}}})),
                                 attr("clip", "0.a_bool", true),
                                 attr("flatten_to_2d", "0.a_bool", false),
                                 attr("step_w", "0.a_f32", 0.0), attr("step_h", "0.a_f32", 0.0),
                                 attr("offset", "0.a_f32", 0.5),
                                 attr("densities", "0.a_array",
                                      json::array({{{"#", "0.a_i32"}, {"D", 2}}})),
                                 attr("fixed_sizes", "0.a_array",
                                      json::array({{{"#", "0.a_f32"}, {"D", 4.0}}})),
                                 attr("fixed_ratios", "0.a_array",
                                      json::array({{{"#", "0.a_f32"}, {"D", 1.0}}}))})),
                 fetch(3, 30, 0), fetch(4, 31, 1), fetch(8, 32, 2), fetch(11, 33, 3),
                 fetch(12, 34, 4)}))
            .dump();
    auto m = load_text(text);
    REQUIRE(unsupported_ops(m.info).empty());
    for (auto [pir, type] : {std::pair{"1.full_like", "fill_any_like"},
                             {"1.full_batch_size_like", "fill_constant_batch_size_like"},
                             {"1.arange", "range"},
                             {"1.affine_channel", "affine_channel"},
                             {"1.density_prior_box", "density_prior_box"}})
        CHECK(m.info.op_types.at(pir) == type);
    runtime::program p(std::move(m.graph));
    const auto y = iota({1, 2, 2, 2}, 0.3f);
    p.set_input("y", y);
    p.set_input("img", iota({1, 3, 8, 8}, 0.1f));
    p.run();
    CHECK(p.output(0).shape == shape_t{1, 2, 2, 2});
    for (float v : p.output(0).span<float>()) CHECK(v == 1.5f);
    CHECK(p.output(1).shape == shape_t{1, 4});
    for (float v : p.output(1).span<float>()) CHECK(v == 0.5f);
    auto r = p.output(2).span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(r.begin(), r.end()) == std::vector<std::int64_t>{0, 2, 4});
    auto ys = y.span<float>();
    auto ac = p.output(3).span<float>();
    REQUIRE(ac.size() == ys.size());
    for (std::size_t i = 0; i < ys.size(); ++i) CHECK(ac[i] == ys[i] * 2.0f - 1.0f);
    // density_prior_box as the op gives it on the same inputs and attributes.
    attr_map a;
    a.set("variances", std::vector<float>{0.1f, 0.1f, 0.2f, 0.2f});
    a.set("clip", true);
    a.set("densities", std::vector<std::int32_t>{2});
    a.set("fixed_sizes", std::vector<float>{4.0f});
    a.set("fixed_ratios", std::vector<float>{1.0f});
    auto want = invoke("density_prior_box", a,
                       named_tensors{}.add("Input", y).add("Image", iota({1, 3, 8, 8}, 0.1f)),
                       {{"Boxes", 1}, {"Variances", 1}});
    REQUIRE(p.output(4).shape == want.get("Boxes").shape());
    CHECK(test::max_abs_diff(p.output(4).span<float>(), want.get("Boxes").span<float>()) == 0);
}

}  // namespace loader_paddle_pir_test
