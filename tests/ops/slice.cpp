// slice against a plain-loop baseline: negative and out-of-range starts/ends,
// several axes, decrease_axis (all removed -> [1]), Starts/Ends tensors and
// lists, int32 data.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_slice_test {

namespace {
using ints = std::vector<std::int32_t>;

attr_map slice_attrs(ints axes, ints starts, ints ends, ints decrease = {}) {
    attr_map a;
    a.set("axes", std::move(axes));
    a.set("starts", std::move(starts));
    a.set("ends", std::move(ends));
    a.set("decrease_axis", std::move(decrease));
    return a;
}

// Elements of a rank-3 x[b0:e0, b1:e1, b2:e2] in order (bounds already resolved).
std::vector<float> baseline(const tensor& x, shape_t b, shape_t e) {
    const auto& s = x.shape();
    auto v = x.span<float>();
    std::vector<float> out;
    for (auto i = b[0]; i < e[0]; ++i)
        for (auto j = b[1]; j < e[1]; ++j)
            for (auto k = b[2]; k < e[2]; ++k) out.push_back(v[(i * s[1] + j) * s[2] + k]);
    return out;
}
}  // namespace

TEST_CASE("slice clamps like Paddle and matches the baseline") {
    auto x = test::random_tensor({4, 5, 6}, 21);
    struct cse {
        ints axes, starts, ends;
        shape_t b, e;
    };
    const cse cases[] = {
        {{0}, {1}, {3}, {1, 0, 0}, {3, 5, 6}},
        {{2}, {-3}, {-1}, {0, 0, 3}, {4, 5, 5}},
        {{1}, {-100}, {100}, {0, 0, 0}, {4, 5, 6}},
        {{0, 2}, {2, 0}, {1000, 1}, {2, 0, 0}, {4, 5, 1}},
        {{0, 1, 2}, {3, 1, 2}, {4, 4, 6}, {3, 1, 2}, {4, 4, 6}},
        {{1}, {5}, {9}, {0, 5, 0}, {4, 5, 6}},  // empty: start clamped to the dim
        {{2}, {0}, {-6}, {0, 0, 0}, {4, 5, 0}},
    };
    for (const auto& c : cases) {
        CAPTURE(to_string(c.b));
        auto r = invoke("slice", slice_attrs(c.axes, c.starts, c.ends),
                        named_tensors{}.add("Input", x), {{"Out", 1}});
        shape_t expect{c.e[0] - c.b[0], c.e[1] - c.b[1], c.e[2] - c.b[2]};
        CHECK(r.get("Out").shape() == expect);
        CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, c.b, c.e)) == 0);
    }
}

TEST_CASE("slice decrease_axis removes size-1 dims; removing all gives [1]") {
    auto x = test::random_tensor({4, 5, 6}, 22);
    auto r = invoke("slice", slice_attrs({0, 2}, {1, 3}, {2, 4}, {0}),
                    named_tensors{}.add("Input", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{5, 1});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, {1, 0, 3}, {2, 5, 4})) == 0);
    auto s = tensor::from<std::int32_t>({4}, ints{7, 3, 28, 28});
    auto r2 = invoke("slice", slice_attrs({0}, {0}, {1}, {0}), named_tensors{}.add("Input", s),
                     {{"Out", 1}});
    CHECK(r2.get("Out").shape() == shape_t{1});
    CHECK(r2.get("Out").span<std::int32_t>()[0] == 7);
    auto r3 = invoke("slice", slice_attrs({0, 1, 2}, {3, 4, 5}, {4, 5, 6}, {0, 1, 2}),
                     named_tensors{}.add("Input", x), {{"Out", 1}});
    CHECK(r3.get("Out").shape() == shape_t{1});
    CHECK(r3.get("Out").span<float>()[0] == x.span<float>()[(3 * 5 + 4) * 6 + 5]);
    CHECK_THROWS_WITH_AS(invoke("slice", slice_attrs({0}, {0}, {2}, {0}),
                                named_tensors{}.add("Input", x), {{"Out", 1}}),
                         doctest::Contains("decrease_axis 0 has size 2"), shape_error);
}

TEST_CASE("slice with decrease_to_0d (Paddle 3.x) gives [] when every dim is removed") {
    auto s = tensor::from<std::int64_t>({4}, std::vector<std::int64_t>{7, 3, 48, 320});
    auto a = slice_attrs({0}, {3}, {4}, {0});
    a.set("decrease_to_0d", true);
    auto r = invoke("slice", a, named_tensors{}.add("Input", s), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{});
    CHECK(r.get("Out").span<std::int64_t>()[0] == 320);
    // Only when every dim goes: one kept dim stays.
    auto x = test::random_tensor({4, 5, 6}, 23);
    auto b = slice_attrs({0, 2}, {1, 3}, {2, 4}, {0});
    b.set("decrease_to_0d", true);
    auto r2 = invoke("slice", b, named_tensors{}.add("Input", x), {{"Out", 1}});
    CHECK(r2.get("Out").shape() == shape_t{5, 1});
    CHECK(test::max_abs_diff(r2.get("Out").span<float>(), baseline(x, {1, 0, 3}, {2, 5, 4})) == 0);
}

TEST_CASE("slice takes StartsTensor over StartsTensorList over the attribute") {
    auto x = test::random_tensor({4, 5, 6}, 23);
    auto one = [](std::int64_t v) { return tensor::from<std::int64_t>({1}, std::vector{v}); };
    named_tensors in;
    in.add("Input", x)
        .add("StartsTensorList", one(1))
        .add("StartsTensorList", one(2))
        .add("EndsTensor", tensor::from<std::int32_t>({2}, ints{-1, 4}));
    auto r = invoke("slice", slice_attrs({0, 2}, {0, 0}, {1, 1}), in, {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{2, 5, 2});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, {1, 0, 2}, {3, 5, 4})) == 0);
    in.add("StartsTensor", tensor::from<std::int32_t>({2}, ints{0, 0}));
    auto r2 = invoke("slice", slice_attrs({0, 2}, {3, 3}, {1, 1}), in, {{"Out", 1}});
    CHECK(r2.get("Out").shape() == shape_t{3, 5, 4});
}

TEST_CASE("slice names bad arguments") {
    auto x = test::random_tensor({4, 5}, 24);
    auto in = named_tensors{}.add("Input", x);
    CHECK_THROWS_WITH_AS(invoke("slice", slice_attrs({2}, {0}, {1}), in, {{"Out", 1}}),
                         doctest::Contains("axes entry 2"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("slice", slice_attrs({0}, {3}, {1}), in, {{"Out", 1}}),
                         doctest::Contains("comes before start"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("slice", slice_attrs({0, 1}, {0}, {1, 1}), in, {{"Out", 1}}),
                         doctest::Contains("starts has 1"), shape_error);
}

}  // namespace ops_slice_test
