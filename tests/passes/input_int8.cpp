// take_int8_inputs (passes/input_int8.hpp): an input that the model only
// quantizes (every reader a quantize_int8 op of one step) becomes that int8
// tensor under the input's name; the caller feeds q = sat8(round(x / step)).
#include <cmath>

#include "litegraph/core/error.hpp"
#include "litegraph/passes/input_int8.hpp"
#include "litegraph/passes/quantize_int8.hpp"
#include "passes/support_passes.hpp"

using namespace litegraph;

namespace passes_input_int8_test {

namespace {

constexpr std::int64_t ic = 3, oc = 4;

// x -> fake(s1) -> conv(w1) -> y1, and with `second`: x -> fake(s2) -> conv(w2) -> y2;
// `float_reader`: a relu reads x too.  quantize_int8 has run on it.
graph::graph quantized(bool second, float s2, bool float_reader = false) {
    graph::graph g;
    graph::builder b(g);
    for (const char* v : {"x", "xf1", "xf2", "r"}) b.declare(v, {-1, ic, 5, 5});
    for (const char* v : {"y1", "y2"}) b.declare(v, {-1, oc, 5, 5});
    test::param(b, "w1", test::random_tensor({oc, ic, 3, 3}, 61));
    test::param(b, "w2", test::random_tensor({oc, ic, 3, 3}, 62));
    test::param(b, "s1", tensor::from<float>({1}, std::vector<float>{1.25f}));
    test::param(b, "s2", tensor::from<float>({1}, std::vector<float>{s2}));
    b.feed("x", 0);
    b.add_op("fake_quantize_dequantize_moving_average_abs_max", {{"X", {"x"}}, {"InScale", {"s1"}}},
             {{"Out", {"xf1"}}}, {});
    b.add_op("conv2d", {{"Input", {"xf1"}}, {"Filter", {"w1"}}}, {{"Output", {"y1"}}},
             test::conv_attrs());
    b.fetch("y1", 0);
    if (second) {
        b.add_op("fake_quantize_dequantize_moving_average_abs_max",
                 {{"X", {"x"}}, {"InScale", {"s2"}}}, {{"Out", {"xf2"}}}, {});
        b.add_op("conv2d", {{"Input", {"xf2"}}, {"Filter", {"w2"}}}, {{"Output", {"y2"}}},
                 test::conv_attrs());
        b.fetch("y2", 1);
    }
    if (float_reader) {
        b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"r"}}}, {});
        b.fetch("r", 2);
    }
    b.finish();
    REQUIRE(passes::quantize_int8(g) == (second ? 2 : 1));
    return g;
}

// What the caller feeds: sat8(round(x / step)), as quantize_int8 computes it.
tensor quantize(const tensor& x, float step) {
    tensor q(dtype::i8, x.shape());
    auto* d = reinterpret_cast<std::int8_t*>(q.data());
    const auto xs = x.span<float>();
    for (std::size_t i = 0; i < xs.size(); ++i)
        d[i] = static_cast<std::int8_t>(
            std::min(127.f, std::max(-128.f, std::round(xs[i] * (1.f / step)))));
    return q;
}

}  // namespace

TEST_CASE("an input read only by its quantize_int8 becomes the int8 input") {
    for (bool second : {false, true}) {
        INFO(std::string(second ? "two quantize ops of one step" : "one quantize op"));
        auto g = quantized(second, 1.25f);
        auto before = g;
        REQUIRE(test::count_ops(g, "quantize_int8") == (second ? 2 : 1));
        const auto r = passes::take_int8_inputs(g);
        REQUIRE(r.size() == 1);
        CHECK(r[0].name == "x");
        CHECK(r[0].scale == 1.25f / 127.f);
        CHECK(r[0].zero_point == 0);
        CHECK(test::count_ops(g, "quantize_int8") == 0);
        REQUIRE(g.feeds.size() == 1);
        const auto& in = g.vars[g.feeds[0].var];
        CHECK(in.name == "x");
        CHECK(in.type == dtype::i8);
        CHECK(in.shape == shape_t{-1, ic, 5, 5});
        for (int op = 0; op < static_cast<int>(g.ops.size()); ++op)
            CHECK(test::in_name(g, op, "Input") == "x");
        // Fed the int8 values, the graph computes what it computed from the floats.
        const auto x = test::random_tensor({2, ic, 5, 5}, 63, -1.5f, 1.5f);
        const auto want = test::run_graph(before, {{"x", x}});
        const auto got = test::run_graph(g, {{"x", quantize(x, r[0].scale)}});
        REQUIRE(got.size() == want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
            REQUIRE(got[i].bytes() == want[i].bytes());
            CHECK(std::memcmp(got[i].data(), want[i].data(), got[i].bytes()) == 0);
        }
    }
}

TEST_CASE("inputs it refuses to take as int8") {
    auto two_steps = quantized(true, 2.f);
    CHECK_THROWS_AS(passes::take_int8_inputs(two_steps), usage_error);
    auto float_read = quantized(false, 1.25f, true);
    CHECK_THROWS_AS(passes::take_int8_inputs(float_read), usage_error);
}

}  // namespace passes_input_int8_test
