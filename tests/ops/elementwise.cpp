#include "litegraph/ops/elementwise.hpp"

#include <cmath>
#include <functional>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_elementwise_test {

namespace {
// Plain-loop baseline: Y (or X, when it has fewer dims) padded with 1s and
// placed at `axis`; each output index maps to an input index by clamping
// broadcast dims to 0.
template <class T>
std::vector<T> baseline(const tensor& x, const tensor& y, int axis, const std::function<T(T, T)>& f,
                        shape_t& out_shape) {
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
    for (std::size_t i = 0; i < n; ++i) out_shape[i] = std::max(xd[i], yd[i]);
    const auto total = numel(out_shape);
    std::vector<T> out(static_cast<std::size_t>(total));
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

named_tensors run(const std::string& type, const tensor& x, const tensor& y, int axis) {
    attr_map a;
    a.set("axis", axis);
    return invoke(type, a, named_tensors{}.add("X", x).add("Y", y), {{"Out", 1}});
}

template <class T>
tensor int_tensor(const shape_t& s, std::uint32_t seed, int lo, int hi, bool nonzero = false) {
    tensor t(dtype_v<T>, s);
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(lo, hi);
    for (auto& v : t.span<T>()) {
        do v = static_cast<T>(d(rng));
        while (nonzero && v == 0);
    }
    return t;
}

struct bcase {
    shape_t x, y;
    int axis;
};
const bcase cases[] = {
    {{2, 3, 4, 5}, {3, 4}, 1}, {{2, 3, 4, 5}, {5}, -1},
    {{2, 3, 4, 5}, {2, 3}, 0}, {{2, 3, 4, 5}, {3, 1}, 1},
    {{2, 1, 4}, {3, 1}, -1},   {{4}, {2, 3, 4}, -1},
    {{3}, {3, 5}, 0},          {{2, 3}, {2, 3}, -1},
    {{2, 3, 4}, {1}, -1},      {{1, 3, 1, 5}, {2, 1, 4, 1}, -1},
    {{6, 7}, {6, 1}, -1},      {{2, 3, 4}, {2, 3, 4}, 0},
};

using float_op = std::pair<const char*, std::function<float(float, float)>>;

// Every op of `ops` on every case, exactly the broadcasting baseline.
template <std::size_t NO, std::size_t NC>
void check_float_ops(const float_op (&ops)[NO], const bcase (&list)[NC], std::uint32_t seed) {
    for (const float_op& op : ops)
        for (const bcase& c : list) {
            const auto& type = op.first;
            const auto& f = op.second;
            CAPTURE(type);
            CAPTURE(to_string(c.x));
            CAPTURE(to_string(c.y));
            CAPTURE(c.axis);
            auto x = test::random_tensor(c.x, seed++, 0.5f, 2.f);
            auto y = test::random_tensor(c.y, seed++, 0.5f, 2.f);
            shape_t s;
            auto expect = baseline<float>(x, y, c.axis, f, s);
            auto out = run(type, x, y, c.axis).get("Out");
            CHECK(out.shape() == s);
            CHECK(test::max_rel_diff(out.span<float>(), expect) == 0.0);
        }
}
}  // namespace

TEST_CASE("float elementwise ops match the broadcasting baseline") {
    const std::pair<const char*, std::function<float(float, float)>> ops[] = {
        {"elementwise_add", [](float a, float b) { return a + b; }},
        {"elementwise_sub", [](float a, float b) { return a - b; }},
        {"elementwise_mul", [](float a, float b) { return a * b; }},
        {"elementwise_div", [](float a, float b) { return a / b; }},
        {"elementwise_max", [](float a, float b) { return std::max(a, b); }},
        {"elementwise_min", [](float a, float b) { return std::min(a, b); }},
        {"elementwise_pow", [](float a, float b) { return std::pow(a, b); }},
    };
    check_float_ops(ops, cases, 1);
}

TEST_CASE("broadcasts whose dims merge into long runs match the baseline") {
    // Y[C] along X[N, C, H, W] (the conv bias add: runs of H * W plus one
    // value), the mirror (X repeated along Y), both sides contiguous after
    // merging, a broadcast in the middle, and X broadcast against Y in turn.
    const bcase merged[] = {
        {{2, 3, 5, 7}, {3}, 1},          {{1, 24, 9, 11}, {24}, 1},
        {{3}, {2, 3, 5, 7}, 1},          {{2, 3, 5, 7}, {5, 7}, -1},
        {{2, 3, 5, 7}, {2, 3, 1, 1}, 0}, {{2, 1, 5, 7}, {2, 3, 5, 7}, -1},
        {{3, 1, 7}, {3, 5, 7}, -1},      {{1, 1, 13}, {1, 1, 13}, 0},
        {{2, 3, 5, 7}, {1, 3, 5, 1}, 0},
    };
    const std::pair<const char*, std::function<float(float, float)>> ops[] = {
        {"elementwise_add", [](float a, float b) { return a + b; }},
        {"elementwise_sub", [](float a, float b) { return a - b; }},
        {"elementwise_div", [](float a, float b) { return a / b; }},
    };
    check_float_ops(ops, merged, 201);
}

TEST_CASE("kernels::add_repeated matches the per-element loop") {
    struct rcase {
        std::int64_t total, count, post;
    };
    for (const rcase& c : {rcase{2 * 3 * 5, 3, 5}, rcase{7, 7, 1}, rcase{12, 1, 12},
                           rcase{4 * 5 * 3, 5, 3}, rcase{3 * 2 * 11, 2, 11}, rcase{0, 3, 5}}) {
        CAPTURE(c.total);
        CAPTURE(c.count);
        CAPTURE(c.post);
        auto x = test::random_tensor({c.total}, 7);
        auto y = test::random_tensor({c.count}, 8);
        auto xs = x.span<float>();
        auto ys = y.span<float>();
        std::vector<float> expect(xs.size()), out(xs.size());
        for (std::int64_t i = 0; i < c.total; ++i)
            expect[std::size_t(i)] = xs[std::size_t(i)] + ys[std::size_t((i / c.post) % c.count)];
        kernels::add_repeated(xs.data(), ys.data(), out.data(), c.total, c.count, c.post);
        CHECK(out == expect);
        kernels::add_repeated(xs.data(), ys.data(), xs.data(), c.total, c.count,
                              c.post);  // in place
        CHECK(std::vector<float>(xs.begin(), xs.end()) == expect);
    }
}

TEST_CASE("integer elementwise ops: int32 and int64, division truncates") {
    std::uint32_t seed = 100;
    auto check_type = [&]<class T>(T) {
        for (auto& c : cases) {
            auto x = int_tensor<T>(c.x, seed++, -50, 50);
            auto y = int_tensor<T>(c.y, seed++, -9, 9, true);
            for (const char* type : {"elementwise_add", "elementwise_mul", "elementwise_div"}) {
                std::function<T(T, T)> f = [](T a, T b) { return T(a + b); };
                if (std::string_view(type) == "elementwise_mul")
                    f = [](T a, T b) { return T(a * b); };
                if (std::string_view(type) == "elementwise_div")
                    f = [](T a, T b) { return T(a / b); };
                shape_t s;
                auto expect = baseline<T>(x, y, c.axis, f, s);
                auto out = run(type, x, y, c.axis).get("Out");
                CHECK(out.type() == dtype_v<T>);
                REQUIRE(out.shape() == s);
                auto got = out.template span<T>();
                CHECK(std::equal(got.begin(), got.end(), expect.begin()));
            }
        }
    };
    check_type(std::int32_t{});
    check_type(std::int64_t{});
    auto x = tensor::from<std::int32_t>({4}, std::vector<std::int32_t>{-7, 7, -8, 9});
    auto y = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{2});
    auto out = run("elementwise_div", x, y, -1).get("Out");
    CHECK(std::vector<std::int32_t>(out.span<std::int32_t>().begin(),
                                    out.span<std::int32_t>().end()) ==
          std::vector<std::int32_t>{-3, 3, -4, 4});
}

TEST_CASE("integer division by zero is an error, not undefined behaviour") {
    auto x = tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{1, 2});
    auto y = tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{1, 0});
    CHECK_THROWS_WITH_AS(run("elementwise_div", x, y, -1), doctest::Contains("division by zero"),
                         shape_error);
    auto m = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{INT32_MIN});
    auto neg = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{-1});
    CHECK(run("elementwise_div", m, neg, -1).get("Out").span<std::int32_t>()[0] == INT32_MIN);
}

TEST_CASE("shape and dtype problems are named") {
    auto x = test::random_tensor({2, 3}, 1);
    CHECK_THROWS_WITH_AS(run("elementwise_add", x, test::random_tensor({4}, 2), -1),
                         doctest::Contains("do not broadcast"), shape_error);
    CHECK_THROWS_WITH_AS(run("elementwise_add", x, test::random_tensor({3}, 2), 2),
                         doctest::Contains("axis 2"), shape_error);
    auto xi = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{1});
    CHECK_THROWS_WITH_AS(run("elementwise_mul", x, xi, -1), doctest::Contains("int32"),
                         shape_error);
}

TEST_CASE("the binary functors are usable on their own") {
    CHECK(ops::bin::add{}(2.f, 3.f) == 5.f);
    CHECK(ops::bin::div{}(-7, 2) == -3);
    CHECK(ops::bin::max{}(2, 3) == 3);
}

TEST_CASE("elementwise_floordiv and elementwise_mod follow Python: floor, sign of the divisor") {
    std::uint32_t seed = 300;
    auto check_ints = [&]<class T>(T) {
        for (auto& c : cases) {
            CAPTURE(to_string(c.x));
            CAPTURE(to_string(c.y));
            auto x = int_tensor<T>(c.x, seed++, -50, 50);
            auto y = int_tensor<T>(c.y, seed++, -9, 9, true);
            // Baseline through double floor (exact for these magnitudes).
            std::function<T(T, T)> fd = [](T a, T b) {
                return static_cast<T>(std::floor(double(a) / double(b)));
            };
            std::function<T(T, T)> fm = [](T a, T b) {
                return static_cast<T>(double(a) - double(b) * std::floor(double(a) / double(b)));
            };
            for (auto op : {std::pair{"elementwise_floordiv", fd}, {"elementwise_mod", fm}}) {
                const auto type = op.first;
                const auto f = op.second;
                CAPTURE(type);
                shape_t s;
                auto expect = baseline<T>(x, y, c.axis, f, s);
                auto out = run(type, x, y, c.axis).get("Out");
                CHECK(out.type() == dtype_v<T>);
                REQUIRE(out.shape() == s);
                auto got = out.template span<T>();
                CHECK(std::equal(got.begin(), got.end(), expect.begin()));
            }
        }
    };
    check_ints(std::int32_t{});
    check_ints(std::int64_t{});
    for (auto& c : cases) {
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.y));
        auto x = test::random_tensor(c.x, seed++, -20.f, 20.f);
        auto y = test::random_tensor(c.y, seed++, -4.f, 4.f);
        shape_t s;
        auto fd = baseline<float>(
            x, y, c.axis, [](float a, float b) { return float(std::floor(double(a) / double(b))); },
            s);
        auto out = run("elementwise_floordiv", x, y, c.axis).get("Out");
        REQUIRE(out.shape() == s);
        CHECK(test::max_abs_diff(out.span<float>(), fd) == 0.0);
        auto fm = baseline<float>(
            x, y, c.axis,
            [](float a, float b) {
                return float(double(a) - double(b) * std::floor(double(a) / double(b)));
            },
            s);
        auto om = run("elementwise_mod", x, y, c.axis).get("Out");
        CHECK(test::max_abs_diff(om.span<float>(), fm) <= 1e-5);
    }
    // Python's answers for the sign cases.
    auto xi = tensor::from<std::int32_t>({6}, std::vector<std::int32_t>{-7, 7, -7, 7, 6, -6});
    auto yi = tensor::from<std::int32_t>({6}, std::vector<std::int32_t>{2, -2, -2, 2, -3, 3});
    const tensor q_t = run("elementwise_floordiv", xi, yi, -1).get("Out");
    auto q = q_t.span<std::int32_t>();
    CHECK(std::vector<std::int32_t>(q.begin(), q.end()) ==
          std::vector<std::int32_t>{-4, -4, 3, 3, -2, -2});
    const tensor r_t = run("elementwise_mod", xi, yi, -1).get("Out");
    auto r = r_t.span<std::int32_t>();
    CHECK(std::vector<std::int32_t>(r.begin(), r.end()) ==
          std::vector<std::int32_t>{1, -1, -1, 1, 0, 0});
    auto xf = tensor::from<float>({4}, std::vector<float>{-7.5f, 7.5f, -7.5f, 1.f});
    auto yf = tensor::from<float>({4}, std::vector<float>{2.f, -2.f, -2.f, 0.f});
    const tensor rf_t = run("elementwise_mod", xf, yf, -1).get("Out");
    auto rf = rf_t.span<float>();
    CHECK(rf[0] == 0.5f);
    CHECK(rf[1] == -0.5f);
    CHECK(rf[2] == -1.5f);
    CHECK(std::isnan(rf[3]));  // float modulo by zero: NaN, as fmod
    const tensor qf_t = run("elementwise_floordiv", xf, yf, -1).get("Out");
    auto qf = qf_t.span<float>();
    CHECK(qf[0] == -4.f);
    CHECK(qf[1] == -4.f);
    CHECK(qf[2] == 3.f);
    CHECK(qf[3] == INFINITY);  // float division by zero: the IEEE result
    // INT_MIN by -1 wraps instead of being undefined.
    auto m = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{INT32_MIN});
    auto neg = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{-1});
    CHECK(run("elementwise_floordiv", m, neg, -1).get("Out").span<std::int32_t>()[0] == INT32_MIN);
    CHECK(run("elementwise_mod", m, neg, -1).get("Out").span<std::int32_t>()[0] == 0);
    // Integer division or modulo by zero is an error.
    auto x = tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{1, 2});
    auto y = tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{1, 0});
    CHECK_THROWS_WITH_AS(run("elementwise_floordiv", x, y, -1),
                         doctest::Contains("integer division by zero"), shape_error);
    CHECK_THROWS_WITH_AS(run("elementwise_mod", x, y, -1),
                         doctest::Contains("integer modulo by zero"), shape_error);
}

}  // namespace ops_elementwise_test
