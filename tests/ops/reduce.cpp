#include "litegraph/ops/reduce.hpp"

#include <cmath>
#include <functional>
#include <limits>
#include <set>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_reduce_test {

namespace {
// Plain baseline: every input element's multi-index, with the reduced dims
// dropped, names its output element; each output folds its elements in order.
struct grouping {
    shape_t out_shape;                               // keep_dim form
    std::vector<std::vector<std::int64_t>> members;  // per output element: input indices
};
grouping group(const shape_t& s, std::set<std::size_t> red) {
    grouping g;
    for (std::size_t i = 0; i < s.size(); ++i) g.out_shape.push_back(red.count(i) ? 1 : s[i]);
    g.members.resize(static_cast<std::size_t>(numel(g.out_shape)));
    const auto total = numel(s);
    for (std::int64_t e = 0; e < total; ++e) {
        std::vector<std::int64_t> idx(s.size());
        std::int64_t rem = e;
        for (std::size_t d = s.size(); d-- > 0;) {
            idx[d] = rem % s[d];
            rem /= s[d];
        }
        std::int64_t o = 0;
        for (std::size_t d = 0; d < s.size(); ++d)
            o = o * g.out_shape[d] + (red.count(d) ? 0 : idx[d]);
        g.members[static_cast<std::size_t>(o)].push_back(e);
    }
    return g;
}

shape_t expected_shape(const shape_t& s, const std::set<std::size_t>& red, bool keep) {
    shape_t r;
    for (std::size_t i = 0; i < s.size(); ++i)
        if (!red.count(i))
            r.push_back(s[i]);
        else if (keep)
            r.push_back(1);
    if (r.empty()) r.push_back(1);  // Paddle 2.x: [1] when every dim goes
    return r;
}

attr_map reduce_attrs(std::vector<std::int64_t> dim, bool keep, bool all) {
    attr_map a;
    a.set("dim", dim);
    a.set("keep_dim", keep);
    a.set("reduce_all", all);
    return a;
}

struct dim_case {
    shape_t shape;
    std::vector<std::int64_t> dim;
    bool all;
    std::set<std::size_t> red;
};
const std::vector<dim_case> dim_cases{
    {{2, 3, 4}, {0}, false, {0}},
    {{2, 3, 4}, {-1}, false, {2}},
    {{2, 3, 4}, {1, 2}, false, {1, 2}},
    {{2, 3, 4}, {2, -1}, false, {2}},  // a repeated dim is one
    {{2, 3, 4}, {0, 1, 2}, false, {0, 1, 2}},
    {{2, 3, 4}, {1}, true, {0, 1, 2}},
    {{2, 3, 4}, {}, false, {0, 1, 2}},
    {{5}, {0}, false, {0}},
    {{3, 1, 2}, {1}, false, {1}},
    {{2, 3, 2, 2}, {0, 2}, false, {0, 2}},
    {{0, 3}, {1}, false, {1}},
    {{0, 3}, {0}, false, {0}},
};
}  // namespace

TEST_CASE("float reductions match the grouping baseline over dims, keep_dim and reduce_all") {
    std::uint32_t seed = 1;
    using fold = std::function<double(const std::vector<double>&)>;
    const std::vector<std::pair<const char*, fold>> kinds{
        {"reduce_sum",
         [](const std::vector<double>& v) {
             double s = 0;
             for (double e : v) s += e;
             return s;
         }},
        {"reduce_mean",
         [](const std::vector<double>& v) {
             double s = 0;
             for (double e : v) s += e;
             return v.empty() ? std::nan("") : s / double(v.size());
         }},
        {"reduce_prod",
         [](const std::vector<double>& v) {
             double s = 1;
             for (double e : v) s *= e;
             return s;
         }},
        {"reduce_max",
         [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }},
        {"reduce_min",
         [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }},
    };
    for (auto& kind : kinds)
        for (auto& c : dim_cases)
            for (bool keep : {false, true}) {
                const auto& type = kind.first;  // (clang 14 captures no binding)
                const auto& f = kind.second;
                CAPTURE(type);
                CAPTURE(to_string(c.shape));
                CAPTURE(keep);
                CAPTURE(c.all);
                auto x = test::random_tensor(c.shape, seed++, 0.5f, 1.5f);
                auto g = group(c.shape, c.red);
                const bool empty_group = !g.members.empty() && g.members[0].empty();
                if (empty_group &&
                    (std::string(type) == "reduce_max" || std::string(type) == "reduce_min")) {
                    CHECK_THROWS_WITH_AS(invoke(type, reduce_attrs(c.dim, keep, c.all),
                                                named_tensors{}.add("X", x), {{"Out", 1}}),
                                         doctest::Contains("reduces an empty dim"), shape_error);
                    continue;
                }
                auto out = invoke(type, reduce_attrs(c.dim, keep, c.all),
                                  named_tensors{}.add("X", x), {{"Out", 1}})
                               .get("Out");
                REQUIRE(out.shape() == expected_shape(c.shape, c.red, keep));
                auto xs = x.span<float>();
                std::vector<float> expect;
                for (auto& m : g.members) {
                    std::vector<double> v;
                    for (auto i : m) v.push_back(xs[static_cast<std::size_t>(i)]);
                    expect.push_back(static_cast<float>(f(v)));
                }
                auto got = out.span<float>();
                REQUIRE(got.size() == expect.size());
                for (std::size_t i = 0; i < got.size(); ++i) {
                    if (std::isnan(expect[i]))
                        CHECK(std::isnan(got[i]));
                    else
                        CHECK(got[i] == doctest::Approx(expect[i]).epsilon(1e-6));
                }
            }
}

TEST_CASE("integer reductions, reduce_sum's int64 for int32, out_dtype, all and any") {
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> d(-5, 5);
    for (auto& c : dim_cases) {
        CAPTURE(to_string(c.shape));
        tensor x(dtype::i32, c.shape);
        for (auto& v : x.span<std::int32_t>()) v = d(rng);
        auto g = group(c.shape, c.red);
        auto xs = x.span<std::int32_t>();
        // reduce_sum of int32: int64 (Paddle's SumInferMeta)
        auto s = invoke("reduce_sum", reduce_attrs(c.dim, false, c.all),
                        named_tensors{}.add("X", x), {{"Out", 1}})
                     .get("Out");
        CHECK(s.type() == dtype::i64);
        // with out_dtype int32 (code 2): int32
        auto a = reduce_attrs(c.dim, true, c.all);
        a.set("out_dtype", 2);
        auto s32 = invoke("reduce_sum", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        CHECK(s32.type() == dtype::i32);
        auto p = invoke("reduce_prod", reduce_attrs(c.dim, false, c.all),
                        named_tensors{}.add("X", x), {{"Out", 1}})
                     .get("Out");
        CHECK(p.type() == dtype::i32);
        std::size_t k = 0;
        for (auto& m : g.members) {
            std::int64_t sum = 0, prod = 1;
            for (auto i : m) {
                sum += xs[static_cast<std::size_t>(i)];
                prod *= xs[static_cast<std::size_t>(i)];
            }
            CHECK(s.span<std::int64_t>()[k] == sum);
            CHECK(s32.span<std::int32_t>()[k] == sum);
            CHECK(p.span<std::int32_t>()[k] == prod);
            ++k;
        }
        // all / any of bools
        tensor b(dtype::boolean, c.shape);
        for (auto& v : b.span<bool>()) v = (rng() % 4) != 0;
        auto all = invoke("reduce_all", reduce_attrs(c.dim, false, c.all),
                          named_tensors{}.add("X", b), {{"Out", 1}})
                       .get("Out");
        auto any = invoke("reduce_any", reduce_attrs(c.dim, true, c.all),
                          named_tensors{}.add("X", b), {{"Out", 1}})
                       .get("Out");
        CHECK(all.type() == dtype::boolean);
        REQUIRE(all.shape() == expected_shape(c.shape, c.red, false));
        REQUIRE(any.shape() == expected_shape(c.shape, c.red, true));
        k = 0;
        for (auto& m : g.members) {
            bool al = true, an = false;
            for (auto i : m) {
                al = al && b.span<bool>()[static_cast<std::size_t>(i)];
                an = an || b.span<bool>()[static_cast<std::size_t>(i)];
            }
            CHECK(all.span<bool>()[k] == al);
            CHECK(any.span<bool>()[k] == an);
            ++k;
        }
    }
    // int64 max / min, with ties
    auto x = tensor::from<std::int64_t>({2, 3}, std::vector<std::int64_t>{4, -2, 4, 7, 7, -9});
    auto mx = invoke("reduce_max", reduce_attrs({1}, false, false), named_tensors{}.add("X", x),
                     {{"Out", 1}})
                  .get("Out");
    CHECK(
        std::vector<std::int64_t>(mx.span<std::int64_t>().begin(), mx.span<std::int64_t>().end()) ==
        std::vector<std::int64_t>{4, 7});
    auto mn = invoke("reduce_min", reduce_attrs({0}, false, false), named_tensors{}.add("X", x),
                     {{"Out", 1}})
                  .get("Out");
    CHECK(
        std::vector<std::int64_t>(mn.span<std::int64_t>().begin(), mn.span<std::int64_t>().end()) ==
        std::vector<std::int64_t>{4, -2, -9});
}

TEST_CASE("reductions: defaults, decrease_to_0d, NaN, and named errors") {
    auto x = test::random_tensor({3, 4}, 7);
    // dim defaults to {0}
    auto s = invoke("reduce_sum", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(s.shape() == shape_t{4});
    attr_map z = reduce_attrs({}, false, true);
    z.set("decrease_to_0d", true);
    CHECK(invoke("reduce_mean", z, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out").shape() ==
          shape_t{});
    auto n = tensor::from<float>({3}, std::vector<float>{1.f, NAN, 2.f});
    CHECK(std::isnan(invoke("reduce_max", reduce_attrs({0}, false, false),
                            named_tensors{}.add("X", n), {{"Out", 1}})
                         .get("Out")
                         .span<float>()[0]));
    CHECK_THROWS_WITH_AS(invoke("reduce_sum", reduce_attrs({2}, false, false),
                                named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("dim 2 is out of range for rank 2"), shape_error);
    auto i = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    CHECK_THROWS_WITH_AS(invoke("reduce_mean", {}, named_tensors{}.add("X", i), {{"Out", 1}}),
                         doctest::Contains("X of dtype int32 is not supported"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("reduce_all", {}, named_tensors{}.add("X", i), {{"Out", 1}}),
                         doctest::Contains("X must be bool, got int32"), shape_error);
    attr_map bad = reduce_attrs({0}, false, false);
    bad.set("out_dtype", 99);
    CHECK_THROWS_WITH_AS(invoke("reduce_sum", bad, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("out_dtype 99"), unsupported_error);
    bad.set("out_dtype", 3);  // int64 from float32: a sum casts, a max does not
    CHECK_THROWS_WITH_AS(invoke("reduce_max", bad, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("out_dtype int64 for X of dtype float32"), shape_error);
}

namespace {
// Paddle's sum of X (one dtype) to out_dtype `o`: X cast to o element by
// element, then added in o (integers wrap: added as unsigned).
template <class T, class O>
std::vector<double> sum_baseline(const std::vector<T>& xs, const grouping& g) {
    std::vector<double> r;
    for (auto& m : g.members) {
        if constexpr (std::is_floating_point_v<O>) {
            double a = 0;
            for (auto i : m) a += static_cast<double>(xs[static_cast<std::size_t>(i)]);
            r.push_back(static_cast<double>(static_cast<O>(a)));
        } else {
            std::uint64_t a = 0;
            for (auto i : m) {
                const double v = static_cast<double>(xs[static_cast<std::size_t>(i)]);
                // Small values: the cast to O truncates toward zero, never overflows.
                a += static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<O>(v)));
            }
            r.push_back(static_cast<double>(static_cast<O>(a)));
        }
    }
    return r;
}

template <class T>
void check_sum_dtypes(std::uint32_t seed) {
    // out_dtype codes: -1 (Paddle's default), INT16 1, INT32 2, INT64 3, FP32 5, FP64 6.
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-300, 300);
    for (auto& c : dim_cases)
        for (int code : {-1, 1, 2, 3, 5, 6}) {
            CAPTURE(to_string(c.shape));
            CAPTURE(code);
            tensor x(dtype_v<T>, c.shape);
            std::vector<T> xs;
            for (auto& v : x.span<T>()) {
                if constexpr (std::is_same_v<T, bool>)
                    v = d(rng) > 0;
                else if constexpr (std::is_floating_point_v<T>)
                    v = static_cast<T>(d(rng)) / T(4);
                else
                    v = static_cast<T>(d(rng));
                xs.push_back(v);
            }
            auto a = reduce_attrs(c.dim, false, c.all);
            a.set("out_dtype", code);
            auto out =
                invoke("reduce_sum", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
            REQUIRE(out.shape() == expected_shape(c.shape, c.red, false));
            // Paddle's SumInferMeta: bool and int32 give int64, others keep their dtype.
            const dtype want = code != -1 ? *dtype_from_paddle(code)
                               : (dtype_v<T> == dtype::boolean || dtype_v<T> == dtype::i32)
                                   ? dtype::i64
                                   : dtype_v<T>;
            REQUIRE(out.type() == want);
            auto g = group(c.shape, c.red);
            visit_dtype(want, [&]<class O>(O) {
                if constexpr (!std::is_same_v<O, bool> && !std::is_same_v<O, std::int8_t> &&
                              !std::is_same_v<O, std::uint8_t>) {
                    auto ref = sum_baseline<T, O>(xs, g);
                    auto got = out.span<O>();
                    REQUIRE(got.size() == ref.size());
                    for (std::size_t k = 0; k < ref.size(); ++k) {
                        if constexpr (std::is_floating_point_v<O>)
                            CHECK(static_cast<double>(got[k]) ==
                                  doctest::Approx(ref[k]).epsilon(1e-6));
                        else
                            CHECK(static_cast<double>(got[k]) == ref[k]);
                    }
                }
            });
        }
}
}  // namespace

TEST_CASE("reduce_sum over every dtype Paddle's CPU kernel takes, with and without out_dtype") {
    check_sum_dtypes<bool>(11);
    check_sum_dtypes<std::int16_t>(12);
    check_sum_dtypes<std::int32_t>(13);
    check_sum_dtypes<std::int64_t>(14);
    check_sum_dtypes<float>(15);
    check_sum_dtypes<double>(16);
    // float16 has no arithmetic here; int8 / uint8 are not Paddle sum dtypes.
    for (auto t : {dtype::f16, dtype::i8, dtype::u8}) {
        tensor x(t, {2, 3});
        CHECK_THROWS_WITH_AS(
            invoke("reduce_sum", reduce_attrs({0}, false, false), named_tensors{}.add("X", x),
                   {{"Out", 1}}),
            doctest::Contains(
                ("X of dtype " + std::string(name_of(t)) + " is not supported").c_str()),
            shape_error);
    }
    // int16 is for sums only
    tensor i16(dtype::i16, {2, 3});
    CHECK_THROWS_WITH_AS(invoke("reduce_max", reduce_attrs({0}, false, false),
                                named_tensors{}.add("X", i16), {{"Out", 1}}),
                         doctest::Contains("X of dtype int16 is not supported"), shape_error);
    // a float that does not fit the integer out_dtype: as cast, never undefined
    auto big = tensor::from<float>({2}, std::vector<float>{3e10f, 1.f});
    auto a = reduce_attrs({0}, false, false);
    a.set("out_dtype", 2);
    auto r = invoke("reduce_sum", a, named_tensors{}.add("X", big), {{"Out", 1}}).get("Out");
    CHECK(r.span<std::int32_t>()[0] == std::numeric_limits<std::int32_t>::min() + 1);
}

TEST_CASE("p_norm matches the baseline for every porder, axis, keepdim and asvector") {
    std::uint32_t seed = 50;
    const float inf = std::numeric_limits<float>::infinity();
    for (const shape_t& s : {shape_t{2, 3, 4}, shape_t{5}, shape_t{3, 1}, shape_t{0, 3}})
        for (float q : {2.f, 1.f, 3.f, 0.5f, 0.f, inf, -inf, -1.f})
            for (int axis = -static_cast<int>(s.size()); axis < static_cast<int>(s.size()); ++axis)
                for (bool keep : {false, true})
                    for (bool vec : {false, true}) {
                        CAPTURE(to_string(s));
                        CAPTURE(q);
                        CAPTURE(axis);
                        CAPTURE(keep);
                        CAPTURE(vec);
                        auto x = test::random_tensor(s, seed++, -2.f, 2.f);
                        if (x.numel() > 2) x.span<float>()[1] = 0.f;  // a zero for porder 0
                        attr_map a;
                        a.set("porder", q);
                        a.set("axis", axis);
                        a.set("keepdim", keep);
                        a.set("asvector", vec);
                        a.set("epsilon", 1e-12f);
                        std::set<std::size_t> red;
                        for (std::size_t i = 0; i < s.size(); ++i)
                            if (vec ||
                                static_cast<int>(i) == (axis < 0 ? axis + int(s.size()) : axis))
                                red.insert(i);
                        auto g = group(s, red);
                        auto out = invoke("p_norm", a, named_tensors{}.add("X", x), {{"Out", 1}})
                                       .get("Out");
                        REQUIRE(out.shape() == expected_shape(s, red, keep));
                        auto xs = x.span<float>();
                        std::size_t k = 0;
                        for (auto& m : g.members) {
                            double r;
                            if (std::isinf(q)) {
                                r = q > 0 ? 0.0 : INFINITY;
                                for (auto i : m) {
                                    double v = std::fabs(xs[static_cast<std::size_t>(i)]);
                                    r = q > 0 ? std::max(r, v) : std::min(r, v);
                                }
                            } else if (q == 0) {
                                r = 0;
                                for (auto i : m) r += xs[static_cast<std::size_t>(i)] != 0;
                            } else {
                                double sum = 0;
                                for (auto i : m)
                                    sum += std::pow(
                                        std::fabs(double(xs[static_cast<std::size_t>(i)])), q);
                                r = std::pow(sum, 1.0 / q);
                            }
                            const float got = out.span<float>()[k++];
                            if (std::isinf(r))
                                CHECK(got == float(r));
                            else
                                CHECK(got == doctest::Approx(r).epsilon(2e-6));
                        }
                    }
    auto i = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    CHECK_THROWS_WITH_AS(invoke("p_norm", {}, named_tensors{}.add("X", i), {{"Out", 1}}),
                         doctest::Contains("X must be float32 or float64, got int32"), shape_error);
    attr_map a;
    a.set("axis", 3);
    CHECK_THROWS_WITH_AS(
        invoke("p_norm", a, named_tensors{}.add("X", test::random_tensor({2, 2}, 1)), {{"Out", 1}}),
        doctest::Contains("axis 3 is out of range for rank 2"), shape_error);
}

}  // namespace ops_reduce_test
