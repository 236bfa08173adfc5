#include "litegraph/ops/softmax.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_softmax_test {

namespace {
// Plain softmax in double along one axis (no max subtraction: inputs are small).
std::vector<float> baseline(const tensor& x, int axis) {
    const auto& s = x.shape();
    const int rank = static_cast<int>(s.size());
    const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= s[i];
    for (std::size_t i = ax + 1; i < s.size(); ++i) inner *= s[i];
    const std::int64_t n = s[ax];
    auto xs = x.span<float>();
    std::vector<float> out(xs.size());
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < inner; ++k) {
            double sum = 0;
            for (std::int64_t j = 0; j < n; ++j)
                sum += std::exp(double(xs[static_cast<std::size_t>((o * n + j) * inner + k)]));
            for (std::int64_t j = 0; j < n; ++j) {
                auto i = static_cast<std::size_t>((o * n + j) * inner + k);
                out[i] = static_cast<float>(std::exp(double(xs[i])) / sum);
            }
        }
    return out;
}
named_tensors run(const tensor& x, int axis) {
    attr_map a;
    a.set("axis", axis);
    return invoke("softmax", a, named_tensors{}.add("X", x), {{"Out", 1}});
}
}  // namespace

TEST_CASE("softmax matches the baseline over shapes and axes") {
    std::uint32_t seed = 11;
    for (const shape_t& s : {shape_t{5}, shape_t{3, 7}, shape_t{2, 3, 4}, shape_t{2, 3, 4, 5}})
        for (int axis = -static_cast<int>(s.size()); axis < static_cast<int>(s.size()); ++axis) {
            CAPTURE(to_string(s));
            CAPTURE(axis);
            auto x = test::random_tensor(s, seed++, -4.f, 4.f);
            auto out = run(x, axis).get("Out");
            REQUIRE(out.shape() == s);
            CHECK(test::max_abs_diff(out.span<float>(), baseline(x, axis)) < 1e-6);
        }
}

TEST_CASE("kernels::softmax gives the element loop's bits (vector max, exp and division)") {
    // The loop before its vector form: max, exp (exp_ops, the firmware's
    // too), eight partial sums (term j in partial j % 8) added pairwise,
    // divide.
    auto plain = [](const std::vector<float>& x, std::int64_t n) {
        std::vector<float> y(x.size());
        for (std::size_t o = 0; o < x.size() / static_cast<std::size_t>(n); ++o) {
            const float* xs = x.data() + o * n;
            float* ys = y.data() + o * n;
            float m = -INFINITY;
            for (std::int64_t j = 0; j < n; ++j) m = std::max(m, xs[j]);
            float part[8] = {};
            for (std::int64_t j = 0; j < n; ++j) part[j % 8] += ys[j] = kernels::exp_ops(xs[j] - m);
            const float sum = ((part[0] + part[4]) + (part[2] + part[6])) +
                              ((part[1] + part[5]) + (part[3] + part[7]));
            for (std::int64_t j = 0; j < n; ++j) ys[j] /= sum;
        }
        return y;
    };
    std::uint32_t seed = 3;
    for (std::int64_t n : {1, 3, 8, 17, 33, 137})
        for (int special = 0; special < 4; ++special) {
            auto x = test::random_tensor({5, n}, seed++, -30.f, 30.f);
            std::vector<float> v(x.span<float>().begin(), x.span<float>().end());
            // A NaN first in a row, -inf, +0 / -0 ties for the maximum.
            if (special == 1) v[0] = NAN, v[static_cast<std::size_t>(n)] = -INFINITY;
            if (special == 2)
                for (std::size_t i = 0; i < v.size(); ++i) v[i] = i % 2 ? 0.f : -0.f;
            if (special == 3) v[v.size() - 1] = INFINITY;
            std::vector<float> y(v.size());
            kernels::softmax(v.data(), y.data(), 5, n, 1);
            const auto want = plain(v, n);
            int wrong = 0;
            for (std::size_t i = 0; i < y.size(); ++i)
                wrong += !(std::memcmp(&y[i], &want[i], sizeof(float)) == 0 ||
                           (std::isnan(y[i]) && std::isnan(want[i])));
            CAPTURE(n);
            CAPTURE(special);
            CHECK(wrong == 0);
        }
}

TEST_CASE("softmax is numerically stable and defaults to the last axis") {
    auto x = tensor::from<float>({2, 2}, std::vector<float>{1000.f, 1001.f, -1000.f, -1000.f});
    auto out = invoke("softmax", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    auto o = out.span<float>();
    CHECK(o[0] == doctest::Approx(1 / (1 + std::exp(1.0))));
    CHECK(o[1] == doctest::Approx(1 / (1 + std::exp(-1.0))));
    CHECK(o[2] == doctest::Approx(0.5));
    CHECK(o[3] == doctest::Approx(0.5));
}

TEST_CASE("softmax names a bad axis") {
    CHECK_THROWS_WITH_AS(run(test::random_tensor({2, 3}, 1), 2), doctest::Contains("axis 2"),
                         shape_error);
}

namespace {
// Plain log-softmax in double: x - log(sum exp(x)) along the axis.
std::vector<float> log_baseline(const tensor& x, int axis) {
    const auto& s = x.shape();
    const int rank = static_cast<int>(s.size());
    const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    std::int64_t outer = 1, inner = 1;
    for (std::size_t i = 0; i < ax; ++i) outer *= s[i];
    for (std::size_t i = ax + 1; i < s.size(); ++i) inner *= s[i];
    const std::int64_t n = s[ax];
    auto xs = x.span<float>();
    std::vector<float> out(xs.size());
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t k = 0; k < inner; ++k) {
            double sum = 0;
            for (std::int64_t j = 0; j < n; ++j)
                sum += std::exp(double(xs[static_cast<std::size_t>((o * n + j) * inner + k)]));
            for (std::int64_t j = 0; j < n; ++j) {
                auto i = static_cast<std::size_t>((o * n + j) * inner + k);
                out[i] = static_cast<float>(double(xs[i]) - std::log(sum));
            }
        }
    return out;
}
}  // namespace

TEST_CASE("log_softmax matches the baseline over shapes and axes") {
    std::uint32_t seed = 71;
    for (const shape_t& s :
         {shape_t{5}, shape_t{3, 7}, shape_t{2, 3, 4}, shape_t{2, 1, 4, 5}, shape_t{0, 3}})
        for (int axis = -static_cast<int>(s.size()); axis < static_cast<int>(s.size()); ++axis) {
            CAPTURE(to_string(s));
            CAPTURE(axis);
            auto x = test::random_tensor(s, seed++, -4.f, 4.f);
            attr_map a;
            a.set("axis", axis);
            auto out =
                invoke("log_softmax", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
            REQUIRE(out.shape() == s);
            CHECK(test::max_abs_diff(out.span<float>(), log_baseline(x, axis)) < 2e-6);
        }
    // Default axis -1; stable for large inputs (the plain formula overflows there).
    auto x = tensor::from<float>({2, 2}, std::vector<float>{1000.f, 1001.f, -1000.f, -1000.f});
    auto o = invoke("log_softmax", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(o.span<float>()[0] == doctest::Approx(-std::log1p(std::exp(1.0))));
    CHECK(o.span<float>()[1] == doctest::Approx(-std::log1p(std::exp(-1.0))));
    CHECK(o.span<float>()[2] == doctest::Approx(-std::log(2.0)));
    attr_map bad;
    bad.set("axis", -3);
    CHECK_THROWS_WITH_AS(invoke("log_softmax", bad, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("axis -3 is out of range"), shape_error);
    auto i = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    CHECK_THROWS_WITH_AS(invoke("log_softmax", {}, named_tensors{}.add("X", i), {{"Out", 1}}),
                         doctest::Contains("X must be float32"), shape_error);
}

}  // namespace ops_softmax_test
