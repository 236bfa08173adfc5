// lstm (Paddle's LoD LSTM) against a plain step-by-step loop written here
// with the gates as separate vectors: forward and reverse, with and without
// peepholes, H0/C0, other activations, sequences of 0, 1 and several rows;
// bad shapes, a missing LoD and unknown activations are named.
#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_lstm_test {

namespace {
double act(const std::string& a, double v) {
    if (a == "sigmoid") return 1.0 / (1.0 + std::exp(-v));
    if (a == "tanh") return std::tanh(v);
    if (a == "relu") return v > 0 ? v : 0;
    return v;
}

struct lstm_case {
    bool peep;
    bool reverse;
    std::string gate = "sigmoid", cell = "tanh", cand = "tanh";
    bool init = false;
};

attr_map attrs(const lstm_case& c) {
    attr_map a;
    a.set("use_peepholes", c.peep);
    a.set("is_reverse", c.reverse);
    a.set("gate_activation", c.gate);
    a.set("cell_activation", c.cell);
    a.set("candidate_activation", c.cand);
    return a;
}

// Gate blocks of width d in the 4d columns: 0 candidate, 1 input, 2 forget, 3 output.
void baseline(const lstm_case& c, const tensor& x, const tensor& w, const tensor& b,
              const std::vector<std::int64_t>& off, const tensor* h0, const tensor* c0,
              std::vector<float>& hidden, std::vector<float>& cell) {
    const auto d = w.shape()[0];
    const auto X = x.span<float>(), W = w.span<float>(), B = b.span<float>();
    hidden.assign(static_cast<std::size_t>(x.shape()[0] * d), 0.f);
    cell = hidden;
    for (std::size_t s = 0; s + 1 < off.size(); ++s) {
        std::vector<double> h(static_cast<std::size_t>(d), 0.0),
            cs(static_cast<std::size_t>(d), 0.0);
        for (std::int64_t k = 0; k < d; ++k) {
            if (h0)
                h[k] = h0->span<float>()[static_cast<std::size_t>(static_cast<std::int64_t>(s) * d +
                                                                  k)];
            if (c0)
                cs[k] = c0->span<float>()[static_cast<std::size_t>(
                    static_cast<std::int64_t>(s) * d + k)];
        }
        std::vector<std::int64_t> rows;
        for (auto t = off[s]; t < off[s + 1]; ++t) rows.push_back(t);
        if (c.reverse) std::reverse(rows.begin(), rows.end());
        for (auto t : rows) {
            auto gate = [&](int blk, std::int64_t k) {
                double v = X[static_cast<std::size_t>(t * 4 * d + blk * d + k)] +
                           B[static_cast<std::size_t>(blk * d + k)];
                for (std::int64_t r = 0; r < d; ++r)
                    v += h[r] * W[static_cast<std::size_t>(r * 4 * d + blk * d + k)];
                return v;
            };
            std::vector<double> nh(static_cast<std::size_t>(d)), nc(static_cast<std::size_t>(d));
            for (std::int64_t k = 0; k < d; ++k) {
                const double peep_i = c.peep ? cs[k] * B[static_cast<std::size_t>(4 * d + k)] : 0;
                const double peep_f = c.peep ? cs[k] * B[static_cast<std::size_t>(5 * d + k)] : 0;
                const double i = act(c.gate, gate(1, k) + peep_i);
                const double f = act(c.gate, gate(2, k) + peep_f);
                nc[k] = act(c.cand, gate(0, k)) * i + cs[k] * f;
                const double peep_o = c.peep ? nc[k] * B[static_cast<std::size_t>(6 * d + k)] : 0;
                const double o = act(c.gate, gate(3, k) + peep_o);
                nh[k] = o * act(c.cell, nc[k]);
            }
            h = nh;
            cs = nc;
            for (std::int64_t k = 0; k < d; ++k) {
                hidden[static_cast<std::size_t>(t * d + k)] = static_cast<float>(h[k]);
                cell[static_cast<std::size_t>(t * d + k)] = static_cast<float>(cs[k]);
            }
        }
    }
}
}  // namespace

TEST_CASE("lstm matches the baseline forward and reverse") {
    const std::int64_t d = 5;
    const std::vector<std::vector<std::int64_t>> lods{{0, 4, 4, 5, 12}, {0, 1}, {0, 0}, {0, 9}};
    const lstm_case cases[] = {{true, false},
                               {true, true},
                               {false, false},
                               {false, true},
                               {true, true, "sigmoid", "relu", "identity", true},
                               {false, false, "sigmoid", "identity", "relu", true}};
    std::uint32_t seed = 1;
    for (const auto& c : cases)
        for (const auto& off : lods) {
            CAPTURE(c.peep);
            CAPTURE(c.reverse);
            CAPTURE(c.cell);
            CAPTURE(lod_to_string({off}));
            auto x = test::random_tensor({off.back(), 4 * d}, seed++);
            x.set_lod({off});
            auto w = test::random_tensor({d, 4 * d}, seed++, -0.5f, 0.5f);
            auto b = test::random_tensor({1, (c.peep ? 7 : 4) * d}, seed++);
            const auto seqs = static_cast<std::int64_t>(off.size()) - 1;
            auto h0 = test::random_tensor({seqs, d}, seed++);
            auto c0 = test::random_tensor({seqs, d}, seed++);
            named_tensors in;
            in.add("Input", x).add("Weight", w).add("Bias", b);
            if (c.init) in.add("H0", h0).add("C0", c0);
            auto r = invoke("lstm", attrs(c), in, {{"Hidden", 1}, {"Cell", 1}});
            std::vector<float> eh, ec;
            baseline(c, x, w, b, off, c.init ? &h0 : nullptr, c.init ? &c0 : nullptr, eh, ec);
            CHECK(r.get("Hidden").shape() == shape_t{off.back(), d});
            CHECK(r.get("Hidden").lod() == lod_t{off});
            CHECK(r.get("Cell").lod() == lod_t{off});
            CHECK(test::max_rel_diff(r.get("Hidden").span<float>(), eh) < 1e-5);
            CHECK(test::max_rel_diff(r.get("Cell").span<float>(), ec) < 1e-5);
        }
}

TEST_CASE("lstm names bad inputs") {
    const std::int64_t d = 2;
    auto x = test::random_tensor({3, 4 * d}, 1);
    auto w = test::random_tensor({d, 4 * d}, 2);
    auto b = test::random_tensor({1, 7 * d}, 3);
    auto run = [&](const attr_map& a, const tensor& xx, const tensor& ww, const tensor& bb) {
        return invoke("lstm", a, named_tensors{}.add("Input", xx).add("Weight", ww).add("Bias", bb),
                      {{"Hidden", 1}, {"Cell", 1}});
    };
    lstm_case c{true, false};
    CHECK_THROWS_WITH_AS(run(attrs(c), x, w, b), doctest::Contains("has no LoD"), shape_error);
    x.set_lod({{0, 3}});
    CHECK_NOTHROW(run(attrs(c), x, w, b));
    CHECK_THROWS_WITH_AS(run(attrs(c), x, w, test::random_tensor({1, 4 * d}, 3)),
                         doctest::Contains("Bias must be [1, 14] (use_peepholes)"), shape_error);
    CHECK_THROWS_WITH_AS(run(attrs(c), x, test::random_tensor({d, 3 * d}, 2), b),
                         doctest::Contains("Weight must be [D, 4D]"), shape_error);
    auto bad = attrs(c);
    bad.set("cell_activation", std::string("softsign"));
    CHECK_THROWS_WITH_AS(run(bad, x, w, b), doctest::Contains("cell_activation 'softsign'"),
                         unsupported_error);
}

}  // namespace ops_lstm_test
