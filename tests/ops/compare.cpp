#include "litegraph/ops/compare.hpp"

#include <cmath>
#include <functional>
#include <limits>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_compare_test {

namespace {
// Plain-loop baseline: the operand with fewer dims padded with 1s and placed at
// `axis` (-1: trailing); each output index maps to an input index by clamping
// broadcast dims to 0.
template <class T>
std::vector<bool> baseline(const tensor& x, const tensor& y, int axis,
                           const std::function<bool(T, T)>& f, shape_t& out_shape) {
    shape_t xd = x.shape(), yd = y.shape();
    const bool swap = xd.size() < yd.size();
    shape_t& big = swap ? yd : xd;
    shape_t& small = swap ? xd : yd;
    const std::size_t n = big.size();
    if (axis == -1) axis = static_cast<int>(n - small.size());
    shape_t padded(n, 1);
    for (std::size_t i = 0; i < small.size(); ++i)
        padded[static_cast<std::size_t>(axis) + i] = small[i];
    small = padded;
    out_shape.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) out_shape[i] = xd[i] == 1 ? yd[i] : xd[i];
    const auto total = numel(out_shape);
    std::vector<bool> out(static_cast<std::size_t>(total));
    auto xs = x.span<T>();
    auto ys = y.span<T>();
    for (std::int64_t o = 0; o < total; ++o) {
        std::int64_t rem = o, xi = 0, yi = 0, xm = 1, ym = 1;
        for (std::size_t d = n; d-- > 0;) {
            const std::int64_t i = rem % out_shape[d];
            rem /= out_shape[d];
            xi += (xd[d] == 1 ? 0 : i) * xm;
            yi += (yd[d] == 1 ? 0 : i) * ym;
            xm *= xd[d];
            ym *= yd[d];
        }
        out[static_cast<std::size_t>(o)] =
            f(xs[static_cast<std::size_t>(xi)], ys[static_cast<std::size_t>(yi)]);
    }
    return out;
}

// Small integer-valued data so that ties are frequent.
template <class T>
tensor small_values(const shape_t& s, std::uint32_t seed) {
    tensor t(dtype_v<T>, s);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-2, 2);
    for (auto& v : t.span<T>()) v = static_cast<T>(d(rng));
    return t;
}

struct shape_case {
    shape_t x, y;
    int axis;
};
const std::vector<shape_case> shape_cases{
    {{2, 3, 4}, {2, 3, 4}, -1}, {{2, 3, 4}, {4}, -1},
    {{2, 3, 4}, {3}, 1},        {{2, 3, 4}, {2, 3}, 0},
    {{3}, {2, 3}, -1},          {{4, 1}, {1, 5}, -1},
    {{2, 1, 4}, {3, 1}, 1},     {{0, 3}, {3}, -1},
    {{}, {2, 2}, -1},           {{1}, {1}, -1},
    {{2, 3, 4, 5}, {3, 4}, 1},
};

template <class T>
void check_type(const std::string& type, const std::function<bool(T, T)>& f, std::uint32_t seed) {
    for (const auto& c : shape_cases) {
        // The logical ops align trailing dims (they have no axis).
        if (type.rfind("logical", 0) == 0 && c.axis != -1) continue;
        CAPTURE(type);
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.y));
        CAPTURE(c.axis);
        auto x = small_values<T>(c.x, seed++);
        auto y = small_values<T>(c.y, seed++);
        attr_map a;
        a.set("axis", c.axis);
        tensor out =
            invoke(type, a, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}).get("Out");
        shape_t shape;
        auto expect = baseline<T>(x, y, c.axis, f, shape);
        REQUIRE(out.type() == dtype::boolean);
        REQUIRE(out.shape() == shape);
        auto got = out.span<bool>();
        std::size_t wrong = 0;
        for (std::size_t i = 0; i < expect.size(); ++i) wrong += got[i] != expect[i];
        CHECK(wrong == 0);
    }
}

template <class T>
void check_all_comparisons(std::uint32_t seed) {
    check_type<T>(
        "equal", [](T a, T b) { return a == b; }, seed);
    check_type<T>(
        "not_equal", [](T a, T b) { return a != b; }, seed + 100);
    check_type<T>(
        "less_than", [](T a, T b) { return a < b; }, seed + 200);
    check_type<T>(
        "less_equal", [](T a, T b) { return a <= b; }, seed + 300);
    check_type<T>(
        "greater_than", [](T a, T b) { return a > b; }, seed + 400);
    check_type<T>(
        "greater_equal", [](T a, T b) { return a >= b; }, seed + 500);
}

template <class T>
void check_all_logical(std::uint32_t seed) {
    check_type<T>(
        "logical_and", [](T a, T b) { return a != T(0) && b != T(0); }, seed);
    check_type<T>(
        "logical_or", [](T a, T b) { return a != T(0) || b != T(0); }, seed + 100);
    check_type<T>(
        "logical_xor", [](T a, T b) { return (a != T(0)) != (b != T(0)); }, seed + 200);
}

tensor floats(std::vector<float> v) {
    const auto n = static_cast<std::int64_t>(v.size());
    return tensor::from<float>({n}, v);
}
std::vector<bool> bools_of(const tensor& t) {
    auto s = t.span<bool>();
    return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("comparisons match the broadcasting baseline for every dtype, with ties") {
    check_all_comparisons<float>(1);
    check_all_comparisons<double>(2);
    check_all_comparisons<std::int32_t>(3);
    check_all_comparisons<std::int64_t>(4);
    check_all_comparisons<std::int8_t>(5);
    check_all_comparisons<std::uint8_t>(6);
    check_all_comparisons<std::int16_t>(7);
}

TEST_CASE("logical ops match the baseline; nonzero numbers are true") {
    check_all_logical<float>(11);
    check_all_logical<std::int32_t>(12);
    check_all_logical<std::int64_t>(13);
    // bool inputs
    for (const auto& c : shape_cases) {
        auto make = [](const shape_t& s, std::uint32_t seed) {
            tensor t(dtype::boolean, s);
            std::mt19937 rng(seed);
            for (auto& v : t.span<bool>()) v = (rng() & 1) != 0;
            return t;
        };
        auto x = make(c.x, 21), y = make(c.y, 22);
        for (auto op : {std::pair<const char*, std::function<bool(bool, bool)>>{
                            "logical_and", [](bool a, bool b) { return a && b; }},
                        {"logical_or", [](bool a, bool b) { return a || b; }},
                        {"logical_xor", [](bool a, bool b) { return a != b; }},
                        {"equal", [](bool a, bool b) { return a == b; }},
                        {"not_equal", [](bool a, bool b) { return a != b; }}}) {
            const char* type = op.first;
            const auto& f = op.second;
            CAPTURE(type);
            CAPTURE(to_string(c.x));
            CAPTURE(to_string(c.y));
            // The logical ops align trailing dims (no axis), so only -1 cases compare.
            if (c.axis != -1) continue;
            auto out =
                invoke(type, {}, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}).get("Out");
            shape_t shape;
            auto expect = baseline<bool>(x, y, -1, f, shape);
            REQUIRE(out.shape() == shape);
            CHECK(bools_of(out) == expect);
        }
    }
    // logical_not of several dtypes, with an empty and a 0-D tensor.
    auto x = floats({0.f, -0.f, 1.5f, -2.f, NAN});
    CHECK(
        bools_of(invoke("logical_not", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out")) ==
        std::vector<bool>{true, true, false, false, false});
    for (const shape_t& s : {shape_t{2, 3}, shape_t{0, 4}, shape_t{}}) {
        auto xi = small_values<std::int64_t>(s, 5);
        auto out = invoke("logical_not", {}, named_tensors{}.add("X", xi), {{"Out", 1}}).get("Out");
        REQUIRE(out.type() == dtype::boolean);
        REQUIRE(out.shape() == s);
        auto xs = xi.span<std::int64_t>();
        std::vector<bool> expect;
        for (auto v : xs) expect.push_back(v == 0);
        CHECK(bools_of(out) == expect);
    }
}

TEST_CASE("float equal is Paddle's: |a - b| < 1e-8, exact for infinities, false for NaN") {
    const float inf = std::numeric_limits<float>::infinity();
    auto x = floats({1.f, 1.f, 0.f, inf, inf, -inf, NAN, 1.f, NAN, 1e-9f});
    auto y = floats({1.f, std::nextafter(1.f, 2.f), 5e-9f, inf, -inf, -inf, NAN, NAN, 1.f, 0.f});
    auto eq = invoke("equal", {}, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}).get("Out");
    CHECK(bools_of(eq) ==
          std::vector<bool>{true, false, true, true, false, true, false, false, false, true});
    auto ne =
        invoke("not_equal", {}, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}).get("Out");
    CHECK(bools_of(ne) ==
          std::vector<bool>{false, true, false, false, true, false, true, true, true, false});
    // Ordered comparisons with NaN are false.
    auto lt =
        invoke("less_than", {}, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}}).get("Out");
    CHECK(lt.span<bool>()[6] == false);
    CHECK(lt.span<bool>()[1] == true);
}

TEST_CASE("comparison problems are named") {
    auto f = test::random_tensor({2, 3}, 1);
    auto i = tensor::from<std::int32_t>({3}, std::vector<std::int32_t>{1, 2, 3});
    CHECK_THROWS_WITH_AS(
        invoke("less_than", {}, named_tensors{}.add("X", f).add("Y", i), {{"Out", 1}}),
        doctest::Contains("X is float32 but Y is int32"), shape_error);
    auto g = test::random_tensor({2, 4}, 2);
    CHECK_THROWS_WITH_AS(invoke("equal", {}, named_tensors{}.add("X", f).add("Y", g), {{"Out", 1}}),
                         doctest::Contains("do not broadcast"), shape_error);
    attr_map a;
    a.set("axis", 3);
    auto h = test::random_tensor({3}, 3);
    CHECK_THROWS_WITH_AS(
        invoke("greater_equal", a, named_tensors{}.add("X", f).add("Y", h), {{"Out", 1}}),
        doctest::Contains("axis 3 does not fit"), shape_error);
    tensor half(dtype::f16, {2});
    CHECK_THROWS_WITH_AS(
        invoke("logical_and", {}, named_tensors{}.add("X", half).add("Y", half), {{"Out", 1}}),
        doctest::Contains("float16 inputs are not supported"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("logical_not", {}, named_tensors{}.add("X", half), {{"Out", 1}}),
                         doctest::Contains("float16 inputs are not supported"), shape_error);
}

}  // namespace ops_compare_test
