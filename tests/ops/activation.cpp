#include "litegraph/ops/activation.hpp"

#include <cmath>
#include <functional>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace {
void check_op(const std::string& type, const attr_map& a, const std::function<double(double)>& ref,
              double tol, float lo = -9.f, float hi = 9.f) {
    std::uint32_t seed = 3;
    for (const shape_t& s : {shape_t{7}, shape_t{2, 3, 5}, shape_t{1, 4, 3, 3}, shape_t{0, 3}}) {
        CAPTURE(type);
        CAPTURE(to_string(s));
        auto x = test::random_tensor(s, seed++, lo, hi);
        auto out = invoke(type, a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        REQUIRE(out.shape() == s);
        auto xs = x.span<float>();
        std::vector<float> expect(xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) expect[i] = static_cast<float>(ref(xs[i]));
        CHECK(test::max_rel_diff(out.span<float>(), expect) <= tol);
    }
}
attr_map attrs(std::initializer_list<std::pair<const char*, float>> kv) {
    attr_map a;
    for (auto& [k, v] : kv) a.set(k, v);
    return a;
}
}  // namespace

TEST_CASE("activations match their formulas") {
    check_op(
        "relu", {}, [](double x) { return x > 0 ? x : 0; }, 0);
    for (float t : {6.f, 2.5f})
        check_op(
            "relu6", attrs({{"threshold", t}}),
            [t](double x) { return std::min(std::max(x, 0.0), double(t)); }, 0);
    check_op(
        "relu6", {}, [](double x) { return std::min(std::max(x, 0.0), 6.0); }, 0);
    for (float al : {0.02f, 0.1f, 1.5f})
        check_op(
            "leaky_relu", attrs({{"alpha", al}}),
            [al](double x) { return x >= 0 ? x : double(al) * x; }, 1e-7);
    check_op(
        "leaky_relu", {}, [](double x) { return x >= 0 ? x : 0.02 * x; }, 1e-7);
    check_op(
        "sigmoid", {}, [](double x) { return 1 / (1 + std::exp(-x)); }, 1e-6);
    check_op(
        "tanh", {}, [](double x) { return std::tanh(x); }, 1e-6);
    check_op(
        "exp", {}, [](double x) { return std::exp(x); }, 1e-6);
    check_op(
        "silu", {}, [](double x) { return x / (1 + std::exp(-x)); }, 1e-6);
    for (float b : {1.f, 0.5f})
        check_op(
            "swish", attrs({{"beta", b}}),
            [b](double x) { return x / (1 + std::exp(-double(b) * x)); }, 1e-6);
    auto hs = [](double t, double s, double o) {
        return [=](double x) { return x * std::min(std::max(x + o, 0.0), t) / s; };
    };
    check_op("hard_swish", {}, hs(6, 6, 3), 1e-6);
    check_op("hard_swish", attrs({{"threshold", 5.f}, {"scale", 4.f}, {"offset", 2.f}}),
             hs(5, 4, 2), 1e-6);
    auto hsig = [](double slope, double off) {
        return [=](double x) { return std::max(0.0, std::min(1.0, slope * x + off)); };
    };
    check_op("hard_sigmoid", {}, hsig(0.2, 0.5), 1e-6);
    check_op("hard_sigmoid", attrs({{"slope", 0.1666667f}, {"offset", 0.5f}}), hsig(0.1666667, 0.5),
             1e-6);
}

TEST_CASE("thresholded_relu, gelu and the unary math ops match their formulas") {
    for (float t : {1.f, -0.5f, 2.25f})
        check_op(
            "thresholded_relu", attrs({{"threshold", t}}),
            [t](double x) { return x > double(t) ? x : 0.0; }, 0);
    check_op(
        "thresholded_relu", {}, [](double x) { return x > 1.0 ? x : 0.0; }, 0);
    // Paddle 3.x's `value` for the elements at or below the threshold.
    check_op(
        "thresholded_relu", attrs({{"threshold", 0.5f}, {"value", -2.f}}),
        [](double x) { return x > 0.5 ? x : -2.0; }, 0);
    const double pi = std::acos(-1.0);
    auto gelu_erf = [](double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); };
    auto gelu_tanh = [pi](double x) {
        return 0.5 * x * (1 + std::tanh(std::sqrt(2 / pi) * (x + 0.044715 * x * x * x)));
    };
    check_op("gelu", {}, gelu_erf, 1e-6);
    attr_map approx;
    approx.set("approximate", true);
    check_op("gelu", approx, gelu_tanh, 1e-6);
    approx.set("approximate", false);
    check_op("gelu", approx, gelu_erf, 1e-6);
    // The two forms differ (by up to ~5e-4 near |x| = 2): each attribute value is its own form.
    {
        auto x = tensor::from<float>({1}, std::vector<float>{2.f});
        approx.set("approximate", true);
        auto t = invoke("gelu", approx, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        approx.set("approximate", false);
        auto e = invoke("gelu", approx, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        CHECK(t.span<float>()[0] != e.span<float>()[0]);
        CHECK(t.span<float>()[0] == doctest::Approx(gelu_tanh(2.0)).epsilon(1e-6));
        CHECK(e.span<float>()[0] == doctest::Approx(gelu_erf(2.0)).epsilon(1e-6));
    }
    check_op(
        "log", {}, [](double x) { return std::log(x); }, 1e-6, 1e-3f, 50.f);
    check_op(
        "sqrt", {}, [](double x) { return std::sqrt(x); }, 1e-6, 0.f, 50.f);
    check_op(
        "floor", {}, [](double x) { return std::floor(x); }, 0);
    check_op(
        "abs", {}, [](double x) { return std::fabs(x); }, 0);
    // Out of the domain: what std's functions give (NaN, -inf), no error.
    auto x = tensor::from<float>({4}, std::vector<float>{-1.f, 0.f, -0.f, -2.5f});
    auto lg = invoke("log", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(std::isnan(lg.span<float>()[0]));
    CHECK(lg.span<float>()[1] == -INFINITY);
    auto sq = invoke("sqrt", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(std::isnan(sq.span<float>()[3]));
    CHECK(sq.span<float>()[1] == 0.f);
    auto fl = invoke("floor", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(fl.span<float>()[3] == -3.f);
}

TEST_CASE("activation functors compose outside the op loop") {
    const ops::act::hard_swish hs{};
    CHECK(hs(3.f) == doctest::Approx(3.f));
    CHECK(hs(-4.f) == 0.f);
    const ops::act::relu6 r6{2.f};
    CHECK(r6(5.f) == 2.f);
    // The parsed params of the op are the functor itself.
    attr_map a;
    a.set("slope", 0.5f);
    auto p = ops::hard_sigmoid::parse(a, "hard_sigmoid");
    static_assert(std::is_same_v<decltype(p), ops::act::hard_sigmoid>);
    CHECK(p(0.f) == 0.5f);
    CHECK(p(2.f) == 1.f);
}

TEST_CASE("an activation of a non-float tensor is named") {
    auto x = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    for (const char* t : {"relu", "gelu", "log", "abs", "thresholded_relu"})
        CHECK_THROWS_WITH_AS(invoke(t, {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                             doctest::Contains("X must be float32, got int32"), shape_error);
}
