#include "litegraph/ops/activation.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string_view>
#include <tuple>
#include <vector>

#include "litegraph/graph/graph.hpp"
#include "litegraph/kernels/simd.hpp"
#include "litegraph/loader/paddle/loader.hpp"
#include "litegraph/loader/paddle/pir.hpp"
#include "litegraph/loader/paddle/writer.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/passes/fuse_conv_activation.hpp"
#include "litegraph/runtime/program.hpp"
#include "pir_json.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_activation_test {

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

TEST_CASE("the vector forms of the fused activations give the scalar forms' bits") {
    // Fused epilogues run vec() in registers and operator() on row tails: the
    // two must agree everywhere, the edges of each piece, infinities and NaN
    // included (hard_swish's vector form is max / min, its scalar one
    // std::max / std::min).
    using V = kernels::simd::vfloat;
    constexpr std::size_t w = V::size;
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> xs = {-inf, -1e30f, -6.f, -3.5f,  -3.f, -2.999f, -1.f,  -0.f, 0.f, 1e-30f,
                             0.5f, 2.999f, 3.f,  3.001f, 6.f,  7.f,     1e30f, inf,  nan};
    for (float v = -8.f; v <= 8.f; v += 0.37f) xs.push_back(v);
    while (xs.size() % w) xs.push_back(1.f);
    auto same = [&](const auto& f, const char* name) {
        int wrong = 0;
        for (std::size_t i = 0; i < xs.size(); i += w) {
            float out[w];
            f.vec(V::load_unaligned(xs.data() + i)).store_unaligned(out);
            for (std::size_t k = 0; k < w; ++k) {
                const float want = f(xs[i + k]);
                wrong += !(std::memcmp(&out[k], &want, sizeof(float)) == 0 ||
                           (std::isnan(out[k]) && std::isnan(want)));
            }
        }
        INFO(name);
        CHECK(wrong == 0);
    };
    same(ops::act::hard_swish{}, "hard_swish");
    same(ops::act::hard_swish{5.f, 4.f, 2.f}, "hard_swish 5 4 2");
    same(ops::act::hard_sigmoid{}, "hard_sigmoid");
    same(ops::act::relu{}, "relu");
    same(ops::act::relu6{}, "relu6");
    same(ops::act::sigmoid{}, "sigmoid");
}

TEST_CASE("kernels::map: vectors and a scalar tail give the scalar functor's bits") {
    // The op's loop runs `vec` on whole vectors and operator() on the rest:
    // every length, every offset of the tail, in place too.
    auto check = [](const auto& f, const char* name) {
        INFO(name);
        for (std::int64_t n : {0, 1, 3, 4, 5, 7, 8, 9, 16, 17, 31, 33, 100}) {
            CAPTURE(n);
            auto x = test::random_tensor({n}, std::uint32_t(n) + 5, -20.f, 20.f);
            auto xs = x.span<float>();
            std::vector<float> out(xs.size()), want(xs.size());
            for (std::size_t i = 0; i < xs.size(); ++i) want[i] = f(xs[i]);
            // Element by element: an empty vector's data() may be null,
            // which memcmp must not see even for zero bytes.
            auto bits_differ = [&](const float* got) {
                std::size_t wrong = 0;
                for (std::size_t i = 0; i < want.size(); ++i)
                    wrong += std::bit_cast<std::uint32_t>(got[i]) !=
                             std::bit_cast<std::uint32_t>(want[i]);
                return wrong;
            };
            kernels::map(f, xs.data(), out.data(), n);
            CHECK(bits_differ(out.data()) == 0);
            kernels::map(f, xs.data(), xs.data(), n);
            CHECK(bits_differ(xs.data()) == 0);
        }
    };
    check(ops::act::hard_swish{}, "hard_swish");
    check(ops::act::sigmoid{}, "sigmoid");
    check(ops::act::relu{}, "relu");
    check(ops::act::tanh{}, "tanh (no vector form)");
}

TEST_CASE("sigmoid: the op over odd sizes is the plain loop of 1 / (1 + exp(-x))") {
    // A size of one vector plus a tail, and one over the op's 32K split.
    for (std::int64_t n : {std::int64_t{13}, std::int64_t{(1 << 15) + 7}}) {
        CAPTURE(n);
        auto x = test::random_tensor({n}, 77, -30.f, 30.f);
        auto out = invoke("sigmoid", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
        auto xs = x.span<float>();
        auto os = out.span<float>();
        double worst = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double want = 1.0 / (1.0 + std::exp(-double(xs[i])));
            worst = std::max(worst, std::abs(os[i] - want) / want);
        }
        CHECK(worst < 1e-6);
    }
}

TEST_CASE("an activation of a non-float tensor is named") {
    auto x = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{1, 2});
    for (const char* t : {"relu", "gelu", "log", "abs", "thresholded_relu"})
        CHECK_THROWS_WITH_AS(invoke(t, {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                             doctest::Contains("X must be float32, got int32"), shape_error);
}

TEST_CASE("mish, softplus, softsign, hardtanh and the unary math ops of issue 17 match") {
    auto softplus_ref = [](double beta, double thr) {
        return [=](double x) { return beta * x > thr ? x : std::log1p(std::exp(beta * x)) / beta; };
    };
    for (float t : {20.f, 1.5f, -0.5f}) {
        auto ref = [t](double x) {
            const double sp = x > double(t) ? x : std::log1p(std::exp(x));
            return x * std::tanh(sp);
        };
        check_op("mish", attrs({{"threshold", t}}), ref, 2e-6);
    }
    check_op(
        "mish", {}, [](double x) { return x * std::tanh(std::log1p(std::exp(x))); }, 2e-6);
    check_op("softplus", {}, softplus_ref(1, 20), 2e-6);
    for (auto [b, t] : {std::pair{2.f, 3.f}, {0.5f, 1.f}, {1.f, -2.f}})
        check_op("softplus", attrs({{"beta", b}, {"threshold", t}}), softplus_ref(b, t), 2e-6);
    check_op(
        "softsign", {}, [](double x) { return x / (1 + std::fabs(x)); }, 1e-6);
    // Paddle 2.x exports hardtanh as brelu (defaults 0 and 24); later versions as hardtanh.
    for (const char* type : {"brelu", "hardtanh"}) {
        check_op(
            type, {}, [](double x) { return std::min(std::max(x, 0.0), 24.0); }, 0, -30.f, 30.f);
        check_op(
            type, attrs({{"t_min", -1.f}, {"t_max", 1.f}}),
            [](double x) { return std::min(std::max(x, -1.0), 1.0); }, 0);
        check_op(
            type, attrs({{"t_min", 0.5f}, {"t_max", 2.5f}}),
            [](double x) { return std::min(std::max(x, 0.5), 2.5); }, 0);
    }
    check_op(
        "rsqrt", {}, [](double x) { return 1 / std::sqrt(x); }, 1e-6, 1e-3f, 50.f);
    check_op(
        "square", {}, [](double x) { return x * x; }, 1e-6);
    check_op(
        "sin", {}, [](double x) { return std::sin(x); }, 2e-6);
    check_op(
        "cos", {}, [](double x) { return std::cos(x); }, 2e-6);
    check_op(
        "erf", {}, [](double x) { return std::erf(x); }, 1e-6, -3.f, 3.f);
    // Edges: rsqrt of 0 is inf, of a negative NaN; mish of a large input is x.
    auto x = tensor::from<float>({3}, std::vector<float>{0.f, -4.f, 30.f});
    auto rs = invoke("rsqrt", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(rs.span<float>()[0] == INFINITY);
    CHECK(std::isnan(rs.span<float>()[1]));
    auto mi = invoke("mish", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(mi.span<float>()[2] == 30.f);
    CHECK(mi.span<float>()[0] == 0.f);
}

TEST_CASE("pow: the factor attribute or the FactorTensor input") {
    std::uint32_t seed = 40;
    for (const shape_t& s : {shape_t{5}, shape_t{2, 3, 4}, shape_t{0, 2}, shape_t{}}) {
        for (float f : {1.f, 2.f, 0.5f, -1.5f, 0.f, 3.f}) {
            CAPTURE(f);
            auto x = test::random_tensor(s, seed++, 0.1f, 4.f);
            std::vector<float> expect;
            for (float v : x.span<float>())
                expect.push_back(static_cast<float>(std::pow(double(v), double(f))));
            attr_map a;
            a.set("factor", f);
            auto out = invoke("pow", a, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
            REQUIRE(out.shape() == s);
            CHECK(test::max_rel_diff(out.span<float>(), expect) <= 1e-6);
            // FactorTensor wins over the attribute.
            attr_map other;
            other.set("factor", 7.f);
            auto ft = tensor::from<float>({1}, std::vector<float>{f});
            auto o2 = invoke("pow", other, named_tensors{}.add("X", x).add("FactorTensor", ft),
                             {{"Out", 1}})
                          .get("Out");
            CHECK(test::max_rel_diff(o2.span<float>(), expect) <= 1e-6);
        }
    }
    // Default factor 1: the identity.
    auto x = test::random_tensor({4}, 9);
    auto id = invoke("pow", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(test::max_abs_diff(id.span<float>(), x.span<float>()) == 0);
    auto two = tensor::from<float>({2}, std::vector<float>{1.f, 2.f});
    CHECK_THROWS_WITH_AS(
        invoke("pow", {}, named_tensors{}.add("X", x).add("FactorTensor", two), {{"Out", 1}}),
        doctest::Contains("FactorTensor must hold one value"), shape_error);
    auto i = tensor::from<std::int32_t>({1}, std::vector<std::int32_t>{2});
    CHECK_THROWS_WITH_AS(
        invoke("pow", {}, named_tensors{}.add("X", x).add("FactorTensor", i), {{"Out", 1}}),
        doctest::Contains("FactorTensor must be float32, got int32"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("pow", {}, named_tensors{}.add("X", i), {{"Out", 1}}),
                         doctest::Contains("X must be float32, got int32"), shape_error);
}

TEST_CASE("the new unary ops name a non-float tensor") {
    auto x = tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{1, 2});
    for (const char* t : {"mish", "softplus", "softsign", "brelu", "hardtanh", "rsqrt", "square",
                          "sin", "cos", "erf"})
        CHECK_THROWS_WITH_AS(invoke(t, {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                             doctest::Contains("X must be float32, got int64"), shape_error);
}

}  // namespace ops_activation_test

namespace ops_activation_test {

TEST_CASE("the activation list: every functor is an op, its fields are what it parsed") {
    const auto all = ops::functor_names(ops::activation_functors{});
    const auto fusable = ops::functor_names(ops::fusable_activations{});
    const auto opencl = ops::functor_names(ops::opencl_activations{});
    CHECK(all.size() >= 26);
    // The derived lists keep the order of the list they filter.
    auto sub = [&](const std::vector<std::string_view>& part) {
        std::size_t at = 0;
        for (auto t : part) {
            while (at < all.size() && all[at] != t) ++at;
            if (at == all.size()) return false;
        }
        return true;
    };
    CHECK(sub(fusable));
    CHECK(sub(opencl));
    CHECK(fusable.size() >= 7);
    for (auto t : all) {
        INFO(t);
        CHECK(ops::names_functor<ops::activation_functors>(t));
        // Registered: a one-element run goes through the op table.
        auto out =
            invoke(std::string(t), {},
                   named_tensors{}.add("X", test::random_tensor({3}, 4, 0.1f, 0.9f)), {{"Out", 1}})
                .get("Out");
        CHECK(out.shape() == shape_t{3});
    }
    CHECK_FALSE(ops::names_functor<ops::activation_functors>("conv2d"));
    CHECK_FALSE(ops::names_functor<ops::fusable_activations>("exp"));

    // fields() returns the parsed attributes in declaration order.
    attr_map a;
    a.set("threshold", 5.f);
    a.set("scale", 4.f);
    a.set("offset", 2.f);
    CHECK(ops::fields_of(ops::act::hard_swish::parse(a)) == std::tuple{5.f, 4.f, 2.f});
    attr_map b;
    b.set("t_min", -1.f);
    b.set("t_max", 3.f);
    CHECK(ops::fields_of(ops::act::hardtanh::parse(b)) == std::tuple{-1.f, 3.f});
    CHECK(ops::fields_of(ops::act::relu{}) == std::tuple<>{});
    // Rebuilding a functor from its fields gives the same function.
    const auto hs = ops::act::hard_swish::parse(a);
    const auto rebuilt =
        std::apply([](auto... v) { return ops::act::hard_swish{v...}; }, ops::fields_of(hs));
    for (float x : {-4.f, -1.f, 0.5f, 3.f}) CHECK(rebuilt(x) == hs(x));
}

}  // namespace ops_activation_test

namespace ops_activation_test {

TEST_CASE("mish, softplus and softsign are conv epilogue stages, in OpenCL too") {
    // softsign was made fusable after the stages and firmware-form changes: its two
    // traits here are the whole change (the fused-conv, pass, OpenCL and firmware
    // tests cover every fusable activation).
    for (std::string_view t : {"mish", "softplus", "softsign"}) {
        INFO(t);
        CHECK(ops::names_functor<ops::fusable_activations>(t));
        CHECK(ops::names_functor<ops::opencl_activations>(t));
    }
}

}  // namespace ops_activation_test

namespace ops_activation_test {

namespace {
/// Runs a loaded program's one input `x` through it; its one output.
std::vector<float> run_loaded(paddle::model m, const tensor& x) {
    runtime::program p(std::move(m.graph));
    p.set_input("x", x);
    p.run();
    const auto& got = p.output(0);
    REQUIRE(got.shape == x.shape());
    auto gs = got.span<float>();
    return {gs.begin(), gs.end()};
}
/// a == b bit for bit, or both NaN.
bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::memcmp(&a[i], &b[i], sizeof(float)) != 0 &&
            !(std::isnan(a[i]) && std::isnan(b[i])))
            return false;
    return true;
}
}  // namespace

TEST_CASE("every activation loads from a Paddle program and from a PIR program and runs") {
    // The list drives this: a new functor in ops::activation_functors is
    // written as a Paddle (protobuf) program and, with a pir_type, as a PIR
    // one, loaded and run with no edit here.  Its output is a plain loop of
    // its functor (Paddle's default attributes) over the input, bit for bit.
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> xv = {-inf, -100.f, -30.f, -9.f, -2.5f, -1.f, -1e-3f, -0.f,
                             0.f,  1e-3f,  0.5f,  1.f,  2.5f,  9.f,  30.f,   inf};
    for (float v = -6.f; v < 6.f; v += 0.75f) xv.push_back(v);
    const shape_t s{2, static_cast<std::int64_t>(xv.size() / 2)};
    const auto x = tensor::from<float>(s, xv);
    int pir_loaded = 0, loaded = 0;
    ops::any_functor(ops::activation_functors{}, [&]<class F>() {
        const std::string type(F::paddle_type);
        INFO(type);
        const auto f = F::parse(attr_map{});
        std::vector<float> expect(xv.size());
        for (std::size_t i = 0; i < xv.size(); ++i) expect[i] = f(xv[i]);

        // x -> the op -> fetch, as a ProgramDesc (protobuf), from memory.
        graph::graph g;
        graph::builder b(g);
        b.declare("x", {-1, s[1]});
        b.declare("y", {-1, s[1]});
        b.feed("x", 0);
        b.add_op(type, {{"X", {"x"}}}, {{"Out", {"y"}}}, {});
        b.fetch("y", 0);
        b.finish();
        paddle::load_options o;
        o.require_params = false;
        auto m = paddle::load_from_memory(paddle::serialize_program(g), "", o);
        CHECK(m.info.op_counts.at(type) == 1);
        CHECK(same_bits(run_loaded(std::move(m), x), expect));
        ++loaded;

        // The same as a PIR program: its PIR name becomes the op.
        if constexpr (requires { F::pir_type; }) {
            using namespace test::pir_json;
            const std::string pir(F::pir_type);
            const auto text =
                program(json::array({data("x", 1, {-1, s[1]}),
                                     op(pir, {1}, {{2, tensor_type("0.t_f32", {-1, s[1]})}}),
                                     fetch(2, 3, 0)}))
                    .dump();
            auto pm = paddle::load_pir_from_memory(text, "", o);
            CHECK(pm.info.op_types.at(pir) == type);
            CHECK(same_bits(run_loaded(std::move(pm), x), expect));
            ++pir_loaded;
        }
        return false;
    });
    CHECK(loaded == static_cast<int>(ops::functor_names(ops::activation_functors{}).size()));
    CHECK(pir_loaded >= 25);  // all but brelu (Paddle 2.x only)
}

}  // namespace ops_activation_test

namespace ops_activation_test {

TEST_CASE("elu: x above 0, alpha * (e^x - 1) at or below it (attribute alpha, default 1)") {
    auto ref = [](double al) { return [al](double x) { return x > 0 ? x : al * std::expm1(x); }; };
    check_op("elu", {}, ref(1.0), 1e-6);
    for (float al : {1.f, 0.5f, 2.5f, 0.1f})
        check_op("elu", attrs({{"alpha", al}}), ref(al), 1e-6, -20.f, 20.f);

    // The edges, against a plain loop in double: the positive side passes
    // through bit for bit, a large negative input (to -inf) gives -alpha, 0
    // and -0 give 0, NaN stays NaN.
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> xv = {-inf, -1e30f, -100.f, -20.f, -3.f, -1.f,  -1e-3f, -1e-30f, -0.f,
                                   0.f,  1e-30f, 1e-3f,  1.f,   3.f,  1e30f, inf,    nan};
    const auto x = tensor::from<float>({static_cast<std::int64_t>(xv.size())}, xv);
    for (float al : {1.f, 0.25f, 2.f}) {
        CAPTURE(al);
        const auto r =
            invoke("elu", attrs({{"alpha", al}}), named_tensors{}.add("X", x), {{"Out", 1}});
        const auto out = r.get("Out").span<float>();
        for (std::size_t i = 0; i < xv.size(); ++i) {
            CAPTURE(xv[i]);
            const float v = xv[i], o = out[i];
            if (std::isnan(v)) {
                CHECK(std::isnan(o));
            } else if (v > 0) {
                CHECK(std::memcmp(&o, &v, sizeof(float)) == 0);
            } else if (v <= -100.f) {
                CHECK(o == -al);
            } else if (v == 0.f) {
                CHECK(o == 0.f);
            } else {
                const double want = double(al) * std::expm1(double(v));
                CHECK(std::abs(double(o) - want) <= 1e-7 * al);
                CHECK(o <= 0.f);
                CHECK(o >= -al);
            }
        }
    }

    // Its traits: a conv epilogue stage, in OpenCL, its PIR name 1.elu whose
    // attribute alpha keeps its name; fields() is alpha.
    CHECK(ops::names_functor<ops::fusable_activations>("elu"));
    CHECK(ops::names_functor<ops::opencl_activations>("elu"));
    CHECK_FALSE(ops::names_functor<ops::gate_activations>("elu"));
    REQUIRE(ops::elu::pir_names.size() == 1);
    CHECK(ops::elu::pir_names[0].pir == "1.elu");
    CHECK(ops::elu::pir_names[0].type == "elu");
    REQUIRE(ops::elu::pir_attrs.size() == 1);
    CHECK(ops::elu::pir_attrs[0].pir == "alpha");
    CHECK(ops::elu::pir_attrs[0].as.empty());
    CHECK(ops::fields_of(ops::act::elu::parse(attrs({{"alpha", 0.75f}}))) == std::tuple{0.75f});
    CHECK(ops::fields_of(ops::act::elu::parse(attr_map{})) == std::tuple{1.f});
    auto i32 = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{-1, 2});
    CHECK_THROWS_WITH_AS(invoke("elu", {}, named_tensors{}.add("X", i32), {{"Out", 1}}),
                         doctest::Contains("X must be float32, got int32"), shape_error);
}

TEST_CASE("elu with alpha 0.5 loads from Paddle and PIR programs, and fuses into a conv") {
    const float al = 0.5f;
    const auto x = test::random_tensor({2, 12}, 17, -6.f, 4.f);
    std::vector<float> expect;  // a plain loop, in double
    for (float v : x.span<float>())
        expect.push_back(
            static_cast<float>(v > 0 ? double(v) : double(al) * std::expm1(double(v))));
    paddle::load_options o;
    o.require_params = false;

    // A ProgramDesc with alpha 0.5: the attribute is read.
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 12});
    b.declare("y", {-1, 12});
    b.feed("x", 0);
    b.add_op("elu", {{"X", {"x"}}}, {{"Out", {"y"}}}, attrs({{"alpha", al}}));
    b.fetch("y", 0);
    b.finish();
    auto m = paddle::load_from_memory(paddle::serialize_program(g), "", o);
    const auto from_pb = run_loaded(std::move(m), x);
    CHECK(test::max_rel_diff(from_pb, expect) <= 1e-6);

    // The PIR op 1.elu with its attribute alpha (an f32).
    {
        using namespace test::pir_json;
        const auto text =
            program(json::array({data("x", 1, {-1, 12}),
                                 op("1.elu", {1}, {{2, tensor_type("0.t_f32", {-1, 12})}},
                                    json::array({attr("alpha", "0.a_f32", 0.5)})),
                                 fetch(2, 3, 0)}))
                .dump();
        auto pm = paddle::load_pir_from_memory(text, "", o);
        CHECK(pm.info.op_types.at("1.elu") == "elu");
        CHECK(same_bits(run_loaded(std::move(pm), x), from_pb));
    }

    // conv2d -> elu (alpha 0.5) becomes one fused_conv2d whose last stage is
    // elu with alpha copied; it equals elu over the conv's output.
    graph::graph cg;
    graph::builder cb(cg);
    cb.declare("image", {-1, 3, 6, 6});
    cb.declare("c", {-1, 4, 6, 6});
    cb.declare("y", {-1, 4, 6, 6});
    const auto filter = test::random_tensor({4, 3, 3, 3}, 18);
    graph::var_node w;
    w.name = "w";
    w.shape = {4, 3, 3, 3};
    w.persistable = true;
    w.value = filter;
    cb.declare(std::move(w));
    cb.feed("image", 0);
    attr_map ca;
    ca.set("strides", std::vector<std::int32_t>{1, 1});
    ca.set("paddings", std::vector<std::int32_t>{1, 1});
    ca.set("dilations", std::vector<std::int32_t>{1, 1});
    ca.set("groups", std::int32_t{1});
    cb.add_op("conv2d", {{"Input", {"image"}}, {"Filter", {"w"}}}, {{"Output", {"c"}}}, ca);
    cb.add_op("elu", {{"X", {"c"}}}, {{"Out", {"y"}}}, attrs({{"alpha", al}}));
    cb.fetch("y", 0);
    cb.finish();
    CHECK(passes::fuse_conv_activation(cg) == 1);
    REQUIRE(cg.ops.size() == 1);
    CHECK(cg.ops[0].type == "fused_conv2d");
    CHECK(test::stages_of(cg.ops[0]) == test::conv_stages("elu"));
    CHECK(cg.ops[0].attrs.get<float>("alpha", -1.f) == al);
    const auto image = test::random_tensor({1, 3, 6, 6}, 19, -2.f, 2.f);
    auto conv = invoke("conv2d", ca, named_tensors{}.add("Input", image).add("Filter", filter),
                       {{"Output", 1}})
                    .get("Output");
    std::vector<float> want;
    for (float v : conv.span<float>())
        want.push_back(static_cast<float>(v > 0 ? double(v) : double(al) * std::expm1(double(v))));
    runtime::program p(std::move(cg));
    p.set_input("image", image);
    p.run();
    REQUIRE(p.output(0).shape == shape_t{1, 4, 6, 6});
    CHECK(test::max_rel_diff(p.output(0).span<float>(), want) <= 1e-5);
}

}  // namespace ops_activation_test
