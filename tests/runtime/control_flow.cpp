// Control flow (runtime/control_flow.hpp, loader/paddle/pir/blocks.hpp): PIR
// `1.if` and `1.while` loaded into ops `if` and `while` holding their blocks,
// each block run as its own program, against plain code of what the
// programs compute.
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/firmware/codegen.hpp"
#include "litegraph/loader/paddle/loader.hpp"
#include "litegraph/loader/paddle/pir.hpp"
#include "litegraph/runtime/plan_problem.hpp"
#include "litegraph/runtime/program.hpp"
#include "pir_json.hpp"
#include "support.hpp"

using namespace litegraph;
namespace pj = litegraph::test::pir_json;

namespace runtime_control_flow_test {

namespace {

tensor scalar_i64(std::int64_t v) {
    tensor t(dtype::i64, {});
    t.span<std::int64_t>()[0] = v;
    return t;
}

std::int64_t out_i64(const runtime::program& p, std::size_t i) {
    return p.output(i).span<std::int64_t>()[0];
}

paddle::load_options topology_only() {
    paddle::load_options o;
    o.require_params = false;
    return o;
}

// A while loop: i = 0; while (i < n) { x = x * 2 + 1; i = i + 1; } fetch x, i.
// The body reads n from outside (an Input of the op).
std::string while_program() {
    using pj::attr;
    using pj::op;
    auto f32 = [](std::vector<std::int64_t> d) { return pj::tensor_type("0.t_f32", d); };
    auto i64 = [](std::vector<std::int64_t> d) { return pj::tensor_type("0.t_i64", d); };
    auto b = pj::tensor_type("0.t_bool", {});
    auto full = [&](std::int64_t id, std::vector<std::int64_t> shape, double v,
                    const std::string& dtype, pj::json tt) {
        return op(
            "1.full", {}, {{id, tt}},
            pj::json::array({attr("shape", "1.a_intarray", shape), attr("value", "0.a_f64", v),
                             attr("dtype", "1.a_dtype", dtype)}));
    };
    auto scale = [&](std::int64_t in, std::int64_t factor, std::int64_t id, pj::json tt) {
        return op("1.scale", {in, factor}, {{id, tt}},
                  pj::json::array(
                      {attr("bias", "0.a_f32", 1.0), attr("bias_after_scale", "0.a_bool", true)}));
    };
    pj::json body =
        pj::json::array({full(10, {1}, 2.0, "float32", f32({1})), scale(-2, 10, 11, f32({3})),
                         full(12, {1}, 1.0, "float32", f32({1})), scale(-1, 12, 13, i64({})),
                         op("1.less_than", {13, 1}, {{14, b}}), op("2.yield", {14, 13, 11}, {})});
    pj::json loop = op("1.while", {4, 3, 2}, {{5, i64({})}, {6, f32({3})}});
    loop["regions"] = pj::json::array(
        {{{"#", "region_1"},
          {"blocks", pj::json::array({{{"#", "block_1"},
                                       {"args", pj::json::array({{{"#", -1}, {"TT", i64({})}},
                                                                 {{"#", -2}, {"TT", f32({3})}}})},
                                       {"ops", body}}})}}});
    pj::json ops =
        pj::json::array({pj::data("n", 1, {}, "int64", "0.t_i64"), pj::data("x", 2, {3}),
                         full(3, {}, 0.0, "int64", i64({})), op("1.less_than", {3, 1}, {{4, b}}),
                         loop, pj::fetch(6, 7, 0), pj::fetch(5, 8, 1)});
    return pj::program(ops).dump();
}

}  // namespace

TEST_CASE("p2o_ifelse runs the block its condition picks") {
    auto dir = test::shared_model("p2o_ifelse", "models_topology_only_pir");
    if (dir.empty()) return;
    auto m = paddle::load(dir, topology_only());
    REQUIRE(m.graph.sub_blocks.empty() == false);
    runtime::program p(std::move(m.graph));
    REQUIRE(p.input_count() == 2);
    REQUIRE(p.output_count() == 2);
    // What the program means: x0 == 1 ? (x1 * 1, x1 * 2) : (x1 * 3, x1 * 4).
    const std::vector<std::pair<std::int64_t, std::int64_t>> cases = {
        {1, 7}, {0, -5}, {1, -11}, {2, 13}, {-1, 0}, {1, 123456789}};
    int taken_then = 0, taken_else = 0;
    for (const auto& c : cases) {
        const std::int64_t x0 = c.first, x1 = c.second;
        p.set_input(std::size_t{0}, scalar_i64(x0));
        p.set_input(std::size_t{1}, scalar_i64(x1));
        p.run();
        std::int64_t want0 = 0, want1 = 0;
        if (x0 == 1) {
            want0 = x1 * 1;
            want1 = x1 * 2;
            ++taken_then;
        } else {
            want0 = x1 * 3;
            want1 = x1 * 4;
            ++taken_else;
        }
        CAPTURE(x0);
        CAPTURE(x1);
        CHECK(out_i64(p, 0) == want0);
        CHECK(out_i64(p, 1) == want1);
        CHECK(p.output(0).shape.empty());
    }
    CHECK(taken_then > 0);
    CHECK(taken_else > 0);
}

TEST_CASE("an if whose blocks yield different shapes gives the taken block's shape") {
    // c ? full([2], 1.5) : x (f32 [5]): the bound is the larger, the result the actual.
    auto f32 = [](std::vector<std::int64_t> d) { return pj::tensor_type("0.t_f32", d); };
    pj::json then_ops = pj::json::array(
        {pj::op("1.full", {}, {{10, f32({2})}},
                pj::json::array({pj::attr("shape", "1.a_intarray", std::vector<std::int64_t>{2}),
                                 pj::attr("value", "0.a_f64", 1.5),
                                 pj::attr("dtype", "1.a_dtype", "float32")})),
         pj::op("2.yield", {10}, {})});
    pj::json else_ops = pj::json::array({pj::op("2.yield", {2}, {})});
    auto region = [](const char* name, pj::json ops) {
        return pj::json{
            {"#", name},
            {"blocks",
             pj::json::array(
                 {{{"#", "block"}, {"args", pj::json::array()}, {"ops", std::move(ops)}}})}};
    };
    pj::json if_op = pj::op("1.if", {1}, {{3, f32({-1})}});
    if_op["regions"] = pj::json::array({region("r1", then_ops), region("r2", else_ops)});
    auto m = paddle::load_pir_from_memory(
        pj::program(pj::json::array({pj::data("c", 1, {}, "bool", "0.t_bool"),
                                     pj::data("x", 2, {5}), if_op, pj::fetch(3, 4, 0)}))
            .dump(),
        "", topology_only());
    runtime::program p(std::move(m.graph));
    for (bool c : {true, false}) {
        tensor ct(dtype::boolean, {});
        ct.span<bool>()[0] = c;
        auto x = test::random_tensor({5}, 9);
        std::vector<float> want(x.span<float>().begin(), x.span<float>().end());
        if (c) want.assign(2, 1.5f);
        p.set_input("c", std::move(ct));
        p.set_input("x", std::move(x));
        p.run();
        CAPTURE(c);
        REQUIRE(p.output(0).shape == shape_t{static_cast<std::int64_t>(want.size())});
        for (std::size_t i = 0; i < want.size(); ++i)
            CHECK(p.output(0).span<float>()[i] == want[i]);
    }
}

TEST_CASE("codegen refuses control flow with an error naming the op") {
    auto dir = test::shared_model("p2o_ifelse", "models_topology_only_pir");
    if (dir.empty()) return;
    firmware::codegen_request r;
    r.load = [&] { return paddle::load(dir, topology_only()); };
    r.header.segments = {planner::segment{}};
    CHECK_THROWS_WITH_AS(firmware::codegen(r),
                         doctest::Contains("control flow has no firmware form"), unsupported_error);
}

TEST_CASE("a PIR while loop runs its body until the condition is false") {
    auto m = paddle::load_pir_from_memory(while_program(), "", topology_only());
    REQUIRE(m.graph.sub_blocks.size() == 1);
    const auto& body = m.graph.sub_blocks[0];
    CHECK(body.feeds.size() == 3);    // i, x, then n from outside
    CHECK(body.fetches.size() == 3);  // the new condition, i, x
    runtime::program p(std::move(m.graph));
    for (std::int64_t n : {0, 1, 3, 7}) {
        tensor x(dtype::f32, {3});
        std::vector<float> want = {0.5f, -2.f, 3.25f};
        for (std::size_t k = 0; k < 3; ++k) x.span<float>()[k] = want[k];
        std::int64_t i = 0;
        while (i < n) {
            for (auto& v : want) v = v * 2.f + 1.f;
            i = i + 1;
        }
        p.set_input("n", scalar_i64(n));
        p.set_input("x", std::move(x));
        p.run();
        CAPTURE(n);
        REQUIRE(p.output(0).shape == shape_t{3});
        for (std::size_t k = 0; k < 3; ++k) CHECK(p.output(0).span<float>()[k] == want[k]);
        CHECK(out_i64(p, 1) == i);
    }
}

TEST_CASE("a while loop stops at program_limits::max_loop_iterations with an error") {
    auto m = paddle::load_pir_from_memory(while_program(), "", topology_only());
    runtime::program p(std::move(m.graph));
    runtime::program_limits l;
    l.max_loop_iterations = 5;
    p.set_limits(l);  // handed to the loop's kernel
    p.set_input("n", scalar_i64(5));
    p.set_input("x", tensor(dtype::f32, {3}));
    p.run();  // five iterations: at the cap, not over it
    CHECK(out_i64(p, 1) == 5);
    p.set_input("n", scalar_i64(6));
    p.set_input("x", tensor(dtype::f32, {3}));
    CHECK_THROWS_WITH(p.run(), doctest::Contains("program_limits::max_loop_iterations"));
}

TEST_CASE("a while condition that is not one value is a clear error") {
    // The loop's condition made of the whole x (3 values) instead of a scalar.
    auto text = while_program();
    auto j = pj::json::parse(text);
    auto& ops = j["program"]["regions"][0]["blocks"][0]["ops"];
    ops[4]["I"][0]["%"] = 2;  // cond := x (f32 [3])
    auto m = paddle::load_pir_from_memory(j.dump(), "", topology_only());
    runtime::program p(std::move(m.graph));
    p.set_input("n", scalar_i64(2));
    p.set_input("x", tensor(dtype::f32, {3}));
    CHECK_THROWS_WITH_AS(p.run(), doctest::Contains("the condition must hold one value"),
                         shape_error);
}

TEST_CASE("SLANet_plus loads its while loop and nested if as blocks, and plans") {
    auto dir = test::shared_model("SLANet_plus", "models_topology_only_pir");
    if (dir.empty()) return;
    auto m = paddle::load(dir, topology_only());
    int loops = 0;
    for (auto& op : m.graph.ops)
        if (op.type == "while") ++loops;
    CHECK(loops == 1);
    REQUIRE(m.graph.sub_blocks.size() == 1);
    const auto& body = m.graph.sub_blocks[0];
    CHECK(body.feeds.size() >= 9);       // the 9 loop-carried values, then outside values
    CHECK(body.fetches.size() == 10);    // the new condition and the 9 values
    CHECK(body.sub_blocks.size() == 2);  // the nested if's two blocks
    auto problem = runtime::problem_for(m.graph, {}, {planner::segment{}});
    CHECK(!problem.buffers.empty());
}

// ---- the ops of SLANet_plus's loop body, against plain loops ----------------------

namespace {
pj::json i64_array(const std::vector<std::int64_t>& v) {
    pj::json a = pj::json::array();
    for (auto x : v) a.push_back({{"#", "0.a_i64"}, {"D", x}});
    return a;
}
pj::json full_op(std::int64_t id, std::vector<std::int64_t> shape, double v,
                 const std::string& dtype, pj::json tt) {
    return pj::op(
        "1.full", {}, {{id, std::move(tt)}},
        pj::json::array({pj::attr("shape", "1.a_intarray", shape), pj::attr("value", "0.a_f64", v),
                         pj::attr("dtype", "1.a_dtype", dtype)}));
}
runtime::program program_of(const pj::json& ops) {
    auto m = paddle::load_pir_from_memory(pj::program(ops).dump(), "", topology_only());
    return runtime::program(std::move(m.graph));
}
}  // namespace

TEST_CASE("1.one_hot: Out[..., k] = 1 where k = X[...], against a plain loop") {
    const std::vector<std::int64_t> xs = {0, 4, 2, 2, 1, 3};
    auto p = program_of(
        pj::json::array({pj::data("x", 1, {2, 3}, "int64", "0.t_i64"),
                         full_op(2, {1}, 5.0, "int32", pj::tensor_type("0.t_i32", {1})),
                         pj::op("1.one_hot", {1, 2}, {{3, pj::tensor_type("0.t_f32", {2, 3, 5})}}),
                         pj::fetch(3, 4, 0)}));
    tensor x(dtype::i64, {2, 3});
    for (std::size_t i = 0; i < xs.size(); ++i) x.span<std::int64_t>()[i] = xs[i];
    p.set_input("x", std::move(x));
    p.run();
    REQUIRE(p.output(0).shape == shape_t{2, 3, 5});
    auto out = p.output(0).span<float>();
    for (std::size_t i = 0; i < xs.size(); ++i)
        for (std::int64_t k = 0; k < 5; ++k)
            CHECK(out[i * 5 + static_cast<std::size_t>(k)] == (xs[i] == k ? 1.f : 0.f));
    tensor bad(dtype::i64, {2, 3});
    for (auto& e : bad.span<std::int64_t>()) e = 5;  // outside [0, 5)
    p.set_input("x", std::move(bad));
    CHECK_THROWS_WITH_AS(p.run(), doctest::Contains("is outside [0, 5)"), shape_error);
}

TEST_CASE("1.full_with_tensor: the shape and the value from tensors") {
    // The value a constant (an attribute once loaded) and a feed (ValueTensor).
    for (bool value_fed : {false, true}) {
        pj::json ops = pj::json::array({pj::data("s", 1, {2}, "int64", "0.t_i64")});
        if (value_fed)
            ops.push_back(pj::data("v", 2, {1}));
        else
            ops.push_back(full_op(2, {1}, 2.5, "float32", pj::tensor_type("0.t_f32", {1})));
        ops.push_back(pj::op("1.full_with_tensor", {2, 1},
                             {{3, pj::tensor_type("0.t_f32", {-1, -1})}},
                             pj::json::array({pj::attr("dtype", "1.a_dtype", "float32")})));
        ops.push_back(pj::fetch(3, 4, 0));
        auto p = program_of(ops);
        tensor s(dtype::i64, {2});
        s.span<std::int64_t>()[0] = 3;
        s.span<std::int64_t>()[1] = 4;
        p.set_input("s", std::move(s));
        float want = 2.5f;
        if (value_fed) {
            tensor v(dtype::f32, {1});
            v.span<float>()[0] = want = -7.25f;
            p.set_input("v", std::move(v));
        }
        p.run();
        CAPTURE(value_fed);
        REQUIRE(p.output(0).shape == shape_t{3, 4});
        for (float e : p.output(0).span<float>()) CHECK(e == want);
    }
}

TEST_CASE("1.set_value_with_tensor_: a strided slice set from a broadcast value") {
    // x [3, 4, 5]; x[1:3, :, -4:5:2] = v [4, 1] (broadcast over the last dim).
    pj::json ops = pj::json::array(
        {pj::data("x", 1, {3, 4, 5}), pj::data("v", 2, {4, 1}),
         pj::op("1.full_int_array", {}, {{3, pj::tensor_type("0.t_i64", {2})}},
                pj::json::array({pj::attr("value", "0.a_array", i64_array({1, -4}))})),
         pj::op("1.full_int_array", {}, {{4, pj::tensor_type("0.t_i64", {2})}},
                pj::json::array({pj::attr("value", "0.a_array", i64_array({3, 5}))})),
         pj::op("1.full_int_array", {}, {{5, pj::tensor_type("0.t_i64", {2})}},
                pj::json::array({pj::attr("value", "0.a_array", i64_array({1, 2}))})),
         pj::op("1.set_value_with_tensor_", {1, 2, 3, 4, 5},
                {{6, pj::tensor_type("0.t_f32", {3, 4, 5})}},
                pj::json::array({pj::attr("axes", "0.a_array", i64_array({0, 2})),
                                 pj::attr("decrease_axes", "0.a_array", pj::json::array()),
                                 pj::attr("none_axes", "0.a_array", pj::json::array())})),
         pj::fetch(6, 7, 0)});
    auto p = program_of(ops);
    auto x = test::random_tensor({3, 4, 5}, 3);
    auto v = test::random_tensor({4, 1}, 4);
    std::vector<float> want(x.span<float>().begin(), x.span<float>().end());
    for (int i = 1; i < 3; ++i)
        for (int j = 0; j < 4; ++j)
            for (int k = 1; k < 5; k += 2)
                want[static_cast<std::size_t>((i * 4 + j) * 5 + k)] =
                    v.span<float>()[static_cast<std::size_t>(j)];
    p.set_input("x", std::move(x));
    p.set_input("v", std::move(v));
    p.run();
    REQUIRE(p.output(0).shape == shape_t{3, 4, 5});
    auto out = p.output(0).span<float>();
    for (std::size_t i = 0; i < want.size(); ++i) CHECK(out[i] == want[i]);
}

TEST_CASE("1.set_value_with_tensor_: SLANet's form, a start from a tensor, a decreased axis") {
    // x [2, 6, 3]; x[:, s, :] = v [2, 3] with s a feed (StartsTensorList).
    pj::json ops = pj::json::array(
        {pj::data("x", 1, {2, 6, 3}), pj::data("v", 2, {2, 3}),
         pj::data("s", 3, {1}, "int64", "0.t_i64"), pj::data("e", 4, {1}, "int64", "0.t_i64"),
         pj::op("1.full_int_array", {}, {{5, pj::tensor_type("0.t_i64", {1})}},
                pj::json::array({pj::attr("value", "0.a_array", i64_array({1}))})),
         pj::op("1.set_value_with_tensor_", {1, 2, 3, 4, 5},
                {{6, pj::tensor_type("0.t_f32", {2, 6, 3})}},
                pj::json::array({pj::attr("axes", "0.a_array", i64_array({1})),
                                 pj::attr("decrease_axes", "0.a_array", i64_array({1})),
                                 pj::attr("none_axes", "0.a_array", pj::json::array())})),
         pj::fetch(6, 7, 0)});
    auto p = program_of(ops);
    for (std::int64_t s : {0, 4, -1}) {
        auto x = test::random_tensor({2, 6, 3}, 5);
        auto v = test::random_tensor({2, 3}, 6);
        std::vector<float> want(x.span<float>().begin(), x.span<float>().end());
        const std::int64_t row = s < 0 ? s + 6 : s;
        for (int b = 0; b < 2; ++b)
            for (int c = 0; c < 3; ++c)
                want[static_cast<std::size_t>((b * 6 + row) * 3 + c)] =
                    v.span<float>()[static_cast<std::size_t>(b * 3 + c)];
        tensor st(dtype::i64, {1}), en(dtype::i64, {1});
        st.span<std::int64_t>()[0] = s;
        en.span<std::int64_t>()[0] = s < 0 ? 6 : s + 1;
        p.set_input("x", std::move(x));
        p.set_input("v", std::move(v));
        p.set_input("s", std::move(st));
        p.set_input("e", std::move(en));
        p.run();
        CAPTURE(s);
        auto out = p.output(0).span<float>();
        for (std::size_t i = 0; i < want.size(); ++i) CHECK(out[i] == want[i]);
    }
}

}  // namespace runtime_control_flow_test
