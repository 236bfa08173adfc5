// gru (Paddle's LoD GRU) against a plain step-by-step loop written here with
// the gates as separate vectors and the weights read as Paddle lays them out
// (a [D, 2D] block for the update and reset gates, then a [D, D] block for the
// candidate): forward and reverse, origin_mode both ways, with and without H0
// and Bias, other activations, sequences of 0, 1 and several rows; bad shapes,
// a missing or wrong LoD and unknown activations are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_gru_test {

namespace {
double act(const std::string& a, double v) {
    if (a == "sigmoid") return 1.0 / (1.0 + std::exp(-v));
    if (a == "tanh") return std::tanh(v);
    if (a == "relu") return v > 0 ? v : 0;
    return v;
}

struct gru_case {
    bool reverse;
    bool origin;
    bool init = false;
    bool bias = true;
    std::string node = "tanh", gate = "sigmoid";
};

attr_map attrs(const gru_case& c) {
    attr_map a;
    a.set("is_reverse", c.reverse);
    a.set("origin_mode", c.origin);
    a.set("activation", c.node);
    a.set("gate_activation", c.gate);
    return a;
}

std::vector<float> baseline(const gru_case& c, const tensor& x, const tensor& w, const tensor* b,
                            const std::vector<std::int64_t>& off, const tensor* h0) {
    const auto d = w.shape()[0];
    const auto X = x.span<float>(), W = w.span<float>();
    auto at = [](std::int64_t i) { return static_cast<std::size_t>(i); };
    // Wg[r][j] for j < 2d (u then r), Wc[r][j] for j < d.
    auto wg = [&](std::int64_t r, std::int64_t j) { return W[at(r * 2 * d + j)]; };
    auto wc = [&](std::int64_t r, std::int64_t j) { return W[at(2 * d * d + r * d + j)]; };
    auto bias = [&](std::int64_t j) { return b ? double(b->span<float>()[at(j)]) : 0.0; };
    std::vector<float> hidden(at(x.shape()[0] * d), 0.f);
    for (std::size_t s = 0; s + 1 < off.size(); ++s) {
        std::vector<double> h(at(d), 0.0);
        if (h0)
            for (std::int64_t k = 0; k < d; ++k)
                h[at(k)] = h0->span<float>()[at(static_cast<std::int64_t>(s) * d + k)];
        std::vector<std::int64_t> rows;
        for (auto t = off[s]; t < off[s + 1]; ++t) rows.push_back(t);
        if (c.reverse) std::reverse(rows.begin(), rows.end());
        for (auto t : rows) {
            std::vector<double> u(at(d)), r(at(d)), nh(at(d));
            for (std::int64_t k = 0; k < d; ++k) {
                double vu = X[at(t * 3 * d + k)] + bias(k);
                double vr = X[at(t * 3 * d + d + k)] + bias(d + k);
                for (std::int64_t q = 0; q < d; ++q) {
                    vu += h[at(q)] * wg(q, k);
                    vr += h[at(q)] * wg(q, d + k);
                }
                u[at(k)] = act(c.gate, vu);
                r[at(k)] = act(c.gate, vr);
            }
            for (std::int64_t k = 0; k < d; ++k) {
                double vc = X[at(t * 3 * d + 2 * d + k)] + bias(2 * d + k);
                for (std::int64_t q = 0; q < d; ++q) vc += r[at(q)] * h[at(q)] * wc(q, k);
                const double cand = act(c.node, vc);
                nh[at(k)] = c.origin ? u[at(k)] * h[at(k)] + (1 - u[at(k)]) * cand
                                     : (1 - u[at(k)]) * h[at(k)] + u[at(k)] * cand;
            }
            h = nh;
            for (std::int64_t k = 0; k < d; ++k)
                hidden[at(t * d + k)] = static_cast<float>(h[at(k)]);
        }
    }
    return hidden;
}
}  // namespace

TEST_CASE("gru matches the baseline forward, reverse and in both modes") {
    const std::int64_t d = 4;
    const std::vector<std::vector<std::int64_t>> lods{
        {0, 4, 4, 5, 12}, {0, 1}, {0, 0}, {0, 9}, {0, 0, 3, 3}};
    std::vector<gru_case> cases;
    for (bool rev : {false, true})
        for (bool origin : {false, true})
            for (bool init : {false, true}) cases.push_back({rev, origin, init});
    cases.push_back({false, false, true, false});
    cases.push_back({true, true, false, true, "relu", "sigmoid"});
    cases.push_back({false, true, true, true, "identity", "tanh"});
    std::uint32_t seed = 1;
    for (const auto& c : cases)
        for (const auto& off : lods) {
            CAPTURE(c.reverse);
            CAPTURE(c.origin);
            CAPTURE(c.init);
            CAPTURE(c.bias);
            CAPTURE(c.node);
            CAPTURE(lod_to_string({off}));
            auto x = test::random_tensor({off.back(), 3 * d}, seed++);
            x.set_lod({off});
            auto w = test::random_tensor({d, 3 * d}, seed++, -0.6f, 0.6f);
            auto b = test::random_tensor({1, 3 * d}, seed++);
            const auto seqs = static_cast<std::int64_t>(off.size()) - 1;
            auto h0 = test::random_tensor({seqs, d}, seed++);
            named_tensors in;
            in.add("Input", x).add("Weight", w);
            if (c.bias) in.add("Bias", b);
            if (c.init) in.add("H0", h0);
            auto r = invoke(
                "gru", attrs(c), in,
                {{"BatchGate", 1}, {"BatchResetHiddenPrev", 1}, {"BatchHidden", 1}, {"Hidden", 1}});
            auto expected = baseline(c, x, w, c.bias ? &b : nullptr, off, c.init ? &h0 : nullptr);
            CHECK(r.get("Hidden").shape() == shape_t{off.back(), d});
            CHECK(r.get("Hidden").lod() == lod_t{off});
            CHECK(test::max_abs_diff(r.get("Hidden").span<float>(), expected) < 1e-5);
        }
}

TEST_CASE("gru in float64 matches float32") {
    const std::int64_t d = 3;
    auto x = test::random_tensor({5, 3 * d}, 7);
    x.set_lod({{0, 2, 5}});
    auto w = test::random_tensor({d, 3 * d}, 8);
    auto to64 = [](const tensor& t) {
        tensor r(dtype::f64, t.shape());
        for (std::size_t i = 0; i < t.span<float>().size(); ++i)
            r.span<double>()[i] = t.span<float>()[i];
        r.set_lod(t.lod());
        return r;
    };
    gru_case c{true, false};
    auto r32 =
        invoke("gru", attrs(c), named_tensors{}.add("Input", x).add("Weight", w), {{"Hidden", 1}});
    auto r64 = invoke("gru", attrs(c), named_tensors{}.add("Input", to64(x)).add("Weight", to64(w)),
                      {{"Hidden", 1}});
    REQUIRE(r64.get("Hidden").type() == dtype::f64);
    for (std::size_t i = 0; i < r32.get("Hidden").span<float>().size(); ++i)
        CHECK(r64.get("Hidden").span<double>()[i] ==
              doctest::Approx(r32.get("Hidden").span<float>()[i]).epsilon(1e-5));
}

TEST_CASE("gru names bad inputs") {
    const std::int64_t d = 2;
    auto x = test::random_tensor({3, 3 * d}, 1);
    auto w = test::random_tensor({d, 3 * d}, 2);
    auto b = test::random_tensor({1, 3 * d}, 3);
    auto run = [&](const attr_map& a, const tensor& xx, const tensor& ww, const tensor& bb) {
        return invoke("gru", a, named_tensors{}.add("Input", xx).add("Weight", ww).add("Bias", bb),
                      {{"Hidden", 1}});
    };
    gru_case c{false, false};
    CHECK_THROWS_WITH_AS(run(attrs(c), x, w, b), doctest::Contains("has no LoD"), shape_error);
    // A LoD that does not fit the rows: tensor::set_lod refuses it.
    CHECK_THROWS_WITH_AS(x.set_lod({{0, 2}}),
                         doctest::Contains("ends at 2 but the tensor has 3 rows"), shape_error);
    x.set_lod({{0, 1}, {0, 3}});
    CHECK_THROWS_WITH_AS(run(attrs(c), x, w, b), doctest::Contains("gru takes one level"),
                         shape_error);
    x.set_lod({{0, 3}});
    CHECK_NOTHROW(run(attrs(c), x, w, b));
    CHECK_THROWS_WITH_AS(run(attrs(c), x, w, test::random_tensor({1, 2 * d}, 3)),
                         doctest::Contains("Bias must be [1, 3D] = [1, 6]"), shape_error);
    CHECK_THROWS_WITH_AS(run(attrs(c), x, test::random_tensor({d, 4 * d}, 2), b),
                         doctest::Contains("Weight must be [D, 3D]"), shape_error);
    CHECK_THROWS_WITH_AS(run(attrs(c), test::random_tensor({3, 2 * d}, 1), w, b),
                         doctest::Contains("Input must be [T, 3D] = [T, 6]"), shape_error);
    auto h0 = test::random_tensor({2, d}, 4);
    CHECK_THROWS_WITH_AS(
        invoke("gru", attrs(c), named_tensors{}.add("Input", x).add("Weight", w).add("H0", h0),
               {{"Hidden", 1}}),
        doctest::Contains("H0 must be [sequences, D] = [1, 2]"), shape_error);
    auto bad = attrs(c);
    bad.set("activation", std::string("softsign"));
    CHECK_THROWS_WITH_AS(run(bad, x, w, b), doctest::Contains("activation 'softsign'"),
                         unsupported_error);
}

}  // namespace ops_gru_test
