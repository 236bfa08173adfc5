// rnn (Paddle's cuDNN-style LSTM / GRU / simple RNN op) against a plain loop
// written here: per layer, direction, sequence, step and gate, in double, with
// the weights kept per layer and direction and packed into WeightList in
// Paddle's order (all weight_ih / weight_hh pairs, then all bias pairs).
// Every mode, 1 and 2 layers, one and two directions, with and without
// SequenceLength (lengths 0, 1, partial and full); bad inputs are named.  The
// float32 fast form (kernels/rnn.hpp) is also checked on random shapes against
// that loop and against the op's own plain loop (litegraph_kernel =
// "reference"), on every instruction set this program and CPU have, and for
// bit-identical outputs on one and two threads.  The firmware form (the op's
// plain loop, kernels::rnn_reference, over caller scratch; PreState and
// WeightList as pointer arrays) equals the op's reference kernel bit for bit
// and the fast form within 1e-5, and refuses SequenceLength and float64.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "firmware_form.hpp"
#include "litegraph/core/parallel.hpp"
#include "litegraph/kernels/simd.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/ops/rnn.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_rnn_test {

namespace {
double sig(double v) {
    return 1.0 / (1.0 + std::exp(-v));
}

struct dir_weights {
    tensor wih, whh, bih, bhh;  // [G*H, In], [G*H, H], [G*H], [G*H]
};

struct rnn_case {
    std::string mode;
    std::int64_t layers;
    bool bidirec;
    std::int64_t t, n, in, h;
    std::vector<std::int32_t> lengths;  // empty: no SequenceLength
};

std::int64_t gate_count(const std::string& mode) {
    return mode == "LSTM" ? 4 : (mode == "GRU" ? 3 : 1);
}

attr_map attrs(const rnn_case& c) {
    attr_map a;
    a.set("mode", c.mode);
    a.set("num_layers", static_cast<std::int32_t>(c.layers));
    a.set("is_bidirec", c.bidirec);
    a.set("hidden_size", static_cast<std::int32_t>(c.h));
    a.set("input_size", static_cast<std::int32_t>(c.in));
    a.set("dropout_prob", 0.5f);  // ignored at inference
    a.set("is_test", true);
    return a;
}

// One row r of w ([rows, cols]) dotted with v.
double dot_row(const tensor& w, std::int64_t r, const std::vector<double>& v) {
    const auto cols = w.shape()[1];
    double s = 0;
    for (std::int64_t q = 0; q < cols; ++q)
        s += double(w.span<float>()[static_cast<std::size_t>(r * cols + q)]) *
             v[static_cast<std::size_t>(q)];
    return s;
}

struct expected {
    std::vector<float> out, h, c;
};

// weights[l][d]; h0 / c0 [L*D, N, H].
expected baseline(const rnn_case& c, const tensor& x,
                  const std::vector<std::vector<dir_weights>>& weights, const tensor& h0,
                  const tensor* c0) {
    const std::int64_t D = c.bidirec ? 2 : 1, H = c.h;
    expected e;
    e.h.assign(h0.span<float>().begin(), h0.span<float>().end());
    if (c0) e.c.assign(c0->span<float>().begin(), c0->span<float>().end());
    // layer_in[t][b] is a vector of the layer's input features.
    std::vector<std::vector<std::vector<double>>> layer_in(static_cast<std::size_t>(c.t),
                                                           std::vector<std::vector<double>>(c.n));
    for (std::int64_t t = 0; t < c.t; ++t)
        for (std::int64_t b = 0; b < c.n; ++b)
            for (std::int64_t q = 0; q < c.in; ++q)
                layer_in[t][b].push_back(
                    x.span<float>()[static_cast<std::size_t>((t * c.n + b) * c.in + q)]);
    for (std::int64_t l = 0; l < c.layers; ++l) {
        std::vector<std::vector<std::vector<double>>> layer_out(
            static_cast<std::size_t>(c.t),
            std::vector<std::vector<double>>(c.n, std::vector<double>(D * H, 0.0)));
        for (std::int64_t d = 0; d < D; ++d) {
            const auto& w = weights[l][d];
            const auto sidx = (l * D + d) * c.n * H;
            for (std::int64_t b = 0; b < c.n; ++b) {
                const std::int64_t len = c.lengths.empty() ? c.t : c.lengths[b];
                std::vector<double> h(H), cs(H);
                for (std::int64_t k = 0; k < H; ++k) {
                    h[k] = h0.span<float>()[static_cast<std::size_t>(sidx + b * H + k)];
                    if (c0) cs[k] = c0->span<float>()[static_cast<std::size_t>(sidx + b * H + k)];
                }
                for (std::int64_t s = 0; s < len; ++s) {
                    const std::int64_t t = d == 0 ? s : len - 1 - s;
                    const auto& xv = layer_in[t][b];
                    // xg(j, k): input part of gate block j, unit k; hg: hidden part.
                    auto xg = [&](int j, std::int64_t k) {
                        return dot_row(w.wih, j * H + k, xv) +
                               w.bih.span<float>()[static_cast<std::size_t>(j * H + k)];
                    };
                    auto hg = [&](int j, std::int64_t k) {
                        return dot_row(w.whh, j * H + k, h) +
                               w.bhh.span<float>()[static_cast<std::size_t>(j * H + k)];
                    };
                    std::vector<double> nh(H), nc(H);
                    for (std::int64_t k = 0; k < H; ++k) {
                        if (c.mode == "LSTM") {
                            const double ig = sig(xg(0, k) + hg(0, k));
                            const double fg = sig(xg(1, k) + hg(1, k));
                            const double gg = std::tanh(xg(2, k) + hg(2, k));
                            const double og = sig(xg(3, k) + hg(3, k));
                            nc[k] = fg * cs[k] + ig * gg;
                            nh[k] = og * std::tanh(nc[k]);
                        } else if (c.mode == "GRU") {
                            const double r = sig(xg(0, k) + hg(0, k));
                            const double z = sig(xg(1, k) + hg(1, k));
                            const double cand = std::tanh(xg(2, k) + r * hg(2, k));
                            nh[k] = (1 - z) * cand + z * h[k];
                        } else if (c.mode == "RNN_TANH") {
                            nh[k] = std::tanh(xg(0, k) + hg(0, k));
                        } else {
                            nh[k] = std::max(0.0, xg(0, k) + hg(0, k));
                        }
                    }
                    h = nh;
                    cs = nc;
                    for (std::int64_t k = 0; k < H; ++k) layer_out[t][b][d * H + k] = h[k];
                }
                for (std::int64_t k = 0; k < H; ++k) {
                    e.h[static_cast<std::size_t>(sidx + b * H + k)] = static_cast<float>(h[k]);
                    if (c0)
                        e.c[static_cast<std::size_t>(sidx + b * H + k)] = static_cast<float>(cs[k]);
                }
            }
        }
        layer_in = layer_out;
    }
    for (std::int64_t t = 0; t < c.t; ++t)
        for (std::int64_t b = 0; b < c.n; ++b)
            for (auto v : layer_in[t][b]) e.out.push_back(static_cast<float>(v));
    return e;
}

struct built {
    named_tensors in;
    std::vector<std::vector<dir_weights>> weights;
    tensor x, h0, c0;
};

built build(const rnn_case& c, std::uint32_t& seed) {
    built r;
    const std::int64_t D = c.bidirec ? 2 : 1, G = gate_count(c.mode), H = c.h;
    r.x = test::random_tensor({c.t, c.n, c.in}, seed++);
    r.h0 = test::random_tensor({c.layers * D, c.n, H}, seed++);
    r.c0 = test::random_tensor({c.layers * D, c.n, H}, seed++);
    // Weights in +-0.6, or +-1.5 / sqrt(H) when smaller (Paddle initialises
    // them in +-1 / sqrt(H)): larger ones make a wide RNN_TANH / RNN_RELU
    // chaotic or explode, where float32 rounding alone grows past 1e-5.
    const float bound = std::min(0.6f, 1.5f / std::sqrt(static_cast<float>(H)));
    for (std::int64_t l = 0; l < c.layers; ++l) {
        r.weights.emplace_back();
        for (std::int64_t d = 0; d < D; ++d)
            r.weights.back().push_back(
                {test::random_tensor({G * H, l == 0 ? c.in : D * H}, seed++, -bound, bound),
                 test::random_tensor({G * H, H}, seed++, -bound, bound),
                 test::random_tensor({G * H}, seed++), test::random_tensor({G * H}, seed++)});
    }
    r.in.add("Input", r.x).add("PreState", r.h0);
    if (c.mode == "LSTM") r.in.add("PreState", r.c0);
    for (auto& layer : r.weights)
        for (auto& w : layer) r.in.add("WeightList", w.wih).add("WeightList", w.whh);
    for (auto& layer : r.weights)
        for (auto& w : layer) r.in.add("WeightList", w.bih).add("WeightList", w.bhh);
    if (!c.lengths.empty())
        r.in.add("SequenceLength",
                 tensor::from<std::int32_t>({c.n}, std::span<const std::int32_t>(c.lengths)));
    return r;
}

named_tensors run_rnn(const rnn_case& c, const named_tensors& in, thread_pool* pool = nullptr,
                      bool reference = false) {
    auto a = attrs(c);
    if (reference) a.set("litegraph_kernel", std::string("reference"));
    return invoke(
        "rnn", a, in,
        {{"Out", 1}, {"State", c.mode == "LSTM" ? 2u : 1u}, {"Reserve", 1}, {"DropoutState", 1}},
        pool);
}

bool same_bytes(const tensor& a, const tensor& b) {
    return a.shape() == b.shape() && a.type() == b.type() &&
           (a.bytes() == 0 ||
            std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.bytes())) == 0);
}

std::string describe(const rnn_case& c) {
    std::string s = c.mode + " layers " + std::to_string(c.layers) +
                    (c.bidirec ? " bidirectional" : " forward") + " T " + std::to_string(c.t) +
                    " N " + std::to_string(c.n) + " I " + std::to_string(c.in) + " H " +
                    std::to_string(c.h) + " lengths";
    for (auto v : c.lengths) s += " " + std::to_string(v);
    return s;
}
}  // namespace

TEST_CASE("rnn matches the baseline: every mode, layers, directions, sequence lengths") {
    std::uint32_t seed = 1;
    for (std::string mode : {"LSTM", "GRU", "RNN_TANH", "RNN_RELU"})
        for (std::int64_t layers : {1, 2})
            for (bool bidirec : {false, true})
                for (int lens = 0; lens < 3; ++lens) {
                    rnn_case c{mode, layers, bidirec, 5, 4, 3, 4, {}};
                    if (lens == 1) c.lengths = {5, 0, 2, 1};
                    if (lens == 2) c.lengths = {3, 5, 5, 4};
                    CAPTURE(mode);
                    CAPTURE(layers);
                    CAPTURE(bidirec);
                    CAPTURE(lens);
                    auto b = build(c, seed);
                    auto r = run_rnn(c, b.in);
                    auto e = baseline(c, b.x, b.weights, b.h0, mode == "LSTM" ? &b.c0 : nullptr);
                    const std::int64_t D = bidirec ? 2 : 1;
                    CHECK(r.get("Out").shape() == shape_t{5, 4, D * 4});
                    CHECK(r.get("State").shape() == shape_t{layers * D, 4, 4});
                    CHECK(test::max_rel_diff(r.get("Out").span<float>(), e.out) < 1e-5);
                    CHECK(test::max_rel_diff(r.get("State", 0).span<float>(), e.h) < 1e-5);
                    if (mode == "LSTM")
                        CHECK(test::max_rel_diff(r.get("State", 1).span<float>(), e.c) < 1e-5);
                    if (lens == 1) {
                        // Sequence 1 has length 0: zeros in Out, State = PreState.
                        for (std::int64_t t = 0; t < 5; ++t)
                            for (std::int64_t k = 0; k < D * 4; ++k)
                                CHECK(r.get("Out").span<float>()[static_cast<std::size_t>(
                                          (t * 4 + 1) * D * 4 + k)] == 0.f);
                        CHECK(r.get("State").span<float>()[4] == b.h0.span<float>()[4]);
                    }
                }
}

TEST_CASE("rnn's fast form matches the plain loops on random shapes, paths and threads") {
    std::mt19937 rng(2026);
    thread_pool two(2);
    const char* modes[] = {"LSTM", "GRU", "RNN_TANH", "RNN_RELU"};
    const std::int64_t hidden[] = {5, 13, 48, 1, 8, 17};
    std::vector<kernels::simd::isa> paths;
    for (int i = 0; i < kernels::simd::isa_count; ++i)  // every slot of the table
        if (kernels::simd::usable(static_cast<kernels::simd::isa>(i)))
            paths.push_back(static_cast<kernels::simd::isa>(i));
    std::uint32_t seed = 3000;
    for (int i = 0; i < 64; ++i) {
        rnn_case c;
        c.mode = modes[i % 4];
        c.layers = 1 + static_cast<std::int64_t>(rng() % 3);
        c.bidirec = rng() % 2 == 1;
        c.t = static_cast<std::int64_t>(rng() % 18);
        c.n = 1 + static_cast<std::int64_t>(rng() % 5);
        c.in = 1 + static_cast<std::int64_t>(rng() % 40);
        c.h = hidden[i % 3 == 0 ? rng() % 6 : i % 3];
        if (rng() % 2 == 1)
            for (std::int64_t b = 0; b < c.n; ++b)
                c.lengths.push_back(static_cast<std::int32_t>(rng() % (c.t + 1)));
        CAPTURE(describe(c));
        auto b = build(c, seed);
        const bool lstm = c.mode == "LSTM";
        const auto e = baseline(c, b.x, b.weights, b.h0, lstm ? &b.c0 : nullptr);
        const auto ref = run_rnn(c, b.in, nullptr, true);
        CHECK(test::max_rel_diff(ref.get("Out").span<float>(), e.out) < 1e-5);
        for (auto path : paths) {
            CAPTURE(kernels::simd::isa_name(path));
            REQUIRE(kernels::simd::set_active(path));
            const auto r = run_rnn(c, b.in);
            const auto r2 = run_rnn(c, b.in, &two);
            kernels::simd::clear_active();
            REQUIRE(r.get("Out").shape() == shape_t{c.t, c.n, (c.bidirec ? 2 : 1) * c.h});
            CHECK(test::max_rel_diff(r.get("Out").span<float>(), e.out) < 1e-5);
            CHECK(test::max_rel_diff(r.get("State", 0).span<float>(), e.h) < 1e-5);
            CHECK(test::max_rel_diff(r.get("Out").span<float>(), ref.get("Out").span<float>()) <
                  1e-5);
            CHECK(test::max_rel_diff(r.get("State", 0).span<float>(),
                                     ref.get("State", 0).span<float>()) < 1e-5);
            if (lstm) {
                CHECK(test::max_rel_diff(r.get("State", 1).span<float>(), e.c) < 1e-5);
                CHECK(test::max_rel_diff(r.get("State", 1).span<float>(),
                                         ref.get("State", 1).span<float>()) < 1e-5);
            }
            for (std::size_t k = 0; k < (lstm ? 2u : 1u); ++k)
                CHECK(same_bytes(r.get("State", k), r2.get("State", k)));
            CHECK(same_bytes(r.get("Out"), r2.get("Out")));
            // The plain loop's arithmetic (kernels/rnn.hpp): its bits on every
            // path, but for RNN_TANH (xsimd::tanh against std::tanh).
            if (c.mode != "RNN_TANH") {
                CHECK(same_bytes(r.get("Out"), ref.get("Out")));
                for (std::size_t k = 0; k < (lstm ? 2u : 1u); ++k)
                    CHECK(same_bytes(r.get("State", k), ref.get("State", k)));
            }
        }
    }
}

TEST_CASE("rnn reuses its prepared weights across runs and prepares new ones for new weights") {
    std::uint32_t seed = 4000;
    rnn_case c{"LSTM", 2, true, 9, 3, 7, 13, {9, 4, 0}};
    auto b1 = build(c, seed);
    auto b2 = build(c, seed);
    auto inst = make_instance("rnn", attrs(c));
    const std::vector<std::pair<std::string, std::size_t>> outs = {{"Out", 1}, {"State", 2}};
    for (const auto* b : {&b1, &b1, &b2, &b1}) {
        auto r = invoke(*inst, "rnn", b->in, outs);
        auto e = baseline(c, b->x, b->weights, b->h0, &b->c0);
        CHECK(test::max_rel_diff(r.get("Out").span<float>(), e.out) < 1e-5);
        CHECK(test::max_rel_diff(r.get("State", 1).span<float>(), e.c) < 1e-5);
    }
}

TEST_CASE("rnn edge shapes: one step, one sequence, three layers, hidden 1, no steps") {
    std::uint32_t seed = 500;
    const rnn_case cases[] = {{"LSTM", 1, true, 1, 1, 2, 3, {}},
                              {"GRU", 3, true, 4, 2, 5, 1, {4, 2}},
                              {"RNN_TANH", 3, false, 6, 3, 1, 2, {0, 6, 3}},
                              {"LSTM", 2, true, 7, 2, 3, 5, {7, 1}},
                              {"GRU", 2, false, 0, 2, 3, 2, {}}};
    for (const auto& c : cases) {
        CAPTURE(c.mode);
        CAPTURE(c.layers);
        CAPTURE(c.t);
        auto b = build(c, seed);
        auto r = run_rnn(c, b.in);
        auto e = baseline(c, b.x, b.weights, b.h0, c.mode == "LSTM" ? &b.c0 : nullptr);
        CHECK(r.get("Out").shape() == shape_t{c.t, c.n, (c.bidirec ? 2 : 1) * c.h});
        CHECK(test::max_rel_diff(r.get("Out").span<float>(), e.out) < 1e-5);
        CHECK(test::max_rel_diff(r.get("State", 0).span<float>(), e.h) < 1e-5);
        if (c.mode == "LSTM")
            CHECK(test::max_rel_diff(r.get("State", 1).span<float>(), e.c) < 1e-5);
    }
}

TEST_CASE("rnn takes an int64 SequenceLength as it takes an int32 one") {
    std::uint32_t seed = 700;
    rnn_case c{"LSTM", 2, true, 4, 3, 2, 3, {0, 4, 2}};
    auto b = build(c, seed);
    auto r32 = run_rnn(c, b.in);
    named_tensors in64;
    for (auto& [slot, ts] : b.in.slots)
        for (auto& t : ts)
            in64.add(slot,
                     slot == "SequenceLength"
                         ? tensor::from<std::int64_t>({3}, std::span<const std::int64_t>(
                                                               std::vector<std::int64_t>{0, 4, 2}))
                         : t);
    auto r64 = run_rnn(c, in64);
    CHECK(test::max_abs_diff(r64.get("Out").span<float>(), r32.get("Out").span<float>()) == 0);
    CHECK(test::max_abs_diff(r64.get("State", 1).span<float>(),
                             r32.get("State", 1).span<float>()) == 0);
    auto e = baseline(c, b.x, b.weights, b.h0, &b.c0);
    CHECK(test::max_rel_diff(r64.get("Out").span<float>(), e.out) < 1e-5);
}

TEST_CASE("rnn in float64 equals the float32 result") {
    std::uint32_t seed = 900;
    rnn_case c{"GRU", 2, true, 4, 3, 3, 3, {4, 0, 2}};
    auto b = build(c, seed);
    auto r32 = run_rnn(c, b.in);
    auto to64 = [](const tensor& t) {
        std::vector<double> v(t.span<float>().begin(), t.span<float>().end());
        return tensor::from<double>(t.shape(), std::span<const double>(v));
    };
    named_tensors in64;
    for (auto& [slot, ts] : b.in.slots)
        for (auto& t : ts) in64.add(slot, t.type() == dtype::f32 ? to64(t) : t);
    auto r64 = run_rnn(c, in64);
    REQUIRE(r64.get("Out").type() == dtype::f64);
    const auto o64 = r64.get("Out").span<double>();
    const auto o32 = r32.get("Out").span<float>();
    REQUIRE(o64.size() == o32.size());
    for (std::size_t i = 0; i < o64.size(); ++i) CHECK(std::abs(o64[i] - o32[i]) < 1e-5);
}

TEST_CASE("rnn names bad inputs") {
    std::uint32_t seed = 77;
    rnn_case c{"LSTM", 2, true, 3, 2, 3, 2, {}};
    auto b = build(c, seed);
    CHECK_NOTHROW(run_rnn(c, b.in));

    auto bad_mode = attrs(c);
    bad_mode.set("mode", std::string("LSTMP"));
    CHECK_THROWS_WITH_AS(invoke("rnn", bad_mode, b.in, {{"Out", 1}, {"State", 2}}),
                         doctest::Contains("mode 'LSTMP' is not supported"), unsupported_error);

    attr_map no_mode;
    no_mode.set("num_layers", std::int32_t{2});
    no_mode.set("is_bidirec", true);
    no_mode.set("hidden_size", std::int32_t{2});
    CHECK_THROWS_WITH_AS(invoke("rnn", no_mode, b.in, {{"Out", 1}, {"State", 2}}),
                         doctest::Contains("attribute 'mode' is missing"), unsupported_error);

    // Drop the last weight: 15 of 16.
    named_tensors fewer;
    for (auto& [slot, ts] : b.in.slots)
        for (std::size_t i = 0; i < ts.size(); ++i)
            if (!(slot == "WeightList" && i + 1 == ts.size())) fewer.add(slot, ts[i]);
    CHECK_THROWS_WITH_AS(run_rnn(c, fewer),
                         doctest::Contains("WeightList must hold 16 tensors (4 per layer and "
                                           "direction), has 15"),
                         shape_error);

    // Layer 1's weight_ih takes D*H = 4 inputs, not I = 3.
    named_tensors bad_w;
    for (auto& [slot, ts] : b.in.slots)
        for (std::size_t i = 0; i < ts.size(); ++i)
            bad_w.add(slot,
                      slot == "WeightList" && i == 4 ? test::random_tensor({8, 3}, 1) : ts[i]);
    CHECK_THROWS_WITH_AS(run_rnn(c, bad_w),
                         doctest::Contains("WeightList 4 (weight_ih of layer 1, direction 0) "
                                           "must be float32 [8,4], is float32 [8,3]"),
                         shape_error);

    named_tensors bad_state;
    for (auto& [slot, ts] : b.in.slots)
        for (std::size_t i = 0; i < ts.size(); ++i)
            bad_state.add(slot,
                          slot == "PreState" && i == 1 ? test::random_tensor({2, 2, 2}, 1) : ts[i]);
    CHECK_THROWS_WITH_AS(run_rnn(c, bad_state),
                         doctest::Contains("PreState 1 must be [num_layers * D, N, H] = "
                                           "[4,2,2], has shape [2,2,2]"),
                         shape_error);

    named_tensors one_state;
    for (auto& [slot, ts] : b.in.slots)
        for (std::size_t i = 0; i < ts.size(); ++i)
            if (!(slot == "PreState" && i == 1)) one_state.add(slot, ts[i]);
    CHECK_THROWS_WITH_AS(run_rnn(c, one_state),
                         doctest::Contains("PreState must hold 2 tensors (h0, c0), has 1"),
                         shape_error);

    auto too_long = b.in;
    too_long.add("SequenceLength",
                 tensor::from<std::int32_t>(
                     {2}, std::span<const std::int32_t>(std::vector<std::int32_t>{3, 4})));
    CHECK_THROWS_WITH_AS(run_rnn(c, too_long),
                         doctest::Contains("SequenceLength[1] = 4 is out of range [0, 3]"),
                         shape_error);

    auto wrong_n = b.in;
    wrong_n.add("SequenceLength",
                tensor::from<std::int32_t>(
                    {3}, std::span<const std::int32_t>(std::vector<std::int32_t>{3, 3, 3})));
    CHECK_THROWS_WITH_AS(run_rnn(c, wrong_n),
                         doctest::Contains("SequenceLength must be int32 or int64 [N] = [2]"),
                         shape_error);

    named_tensors x2;
    for (auto& [slot, ts] : b.in.slots)
        for (auto& t : ts) x2.add(slot, slot == "Input" ? test::random_tensor({3, 6}, 1) : t);
    CHECK_THROWS_WITH_AS(run_rnn(c, x2), doctest::Contains("Input must be [T, N, I]"), shape_error);
}

TEST_CASE("rnn's firmware form equals the reference kernel and the fast one") {
    std::uint32_t seed = 5000;
    const std::vector<std::pair<std::string, std::size_t>> outs = {
        {"Out", 1}, {"State", 2}, {"Reserve", 1}, {"DropoutState", 1}};
    // The recognizer's: 2 layers, bidirectional, hidden 48, 40 steps of 1
    // sequence of 96 features (MobileNetV3 small's last channels are 288; a
    // smaller I keeps the test short); then other modes and shapes.
    const rnn_case cases[] = {
        {"LSTM", 2, true, 40, 1, 96, 48, {}},  {"LSTM", 1, false, 5, 3, 4, 7, {}},
        {"LSTM", 3, true, 6, 2, 3, 5, {}},     {"GRU", 2, true, 5, 2, 3, 4, {}},
        {"RNN_TANH", 1, true, 4, 2, 3, 3, {}}, {"RNN_RELU", 2, false, 4, 1, 2, 3, {}},
        {"LSTM", 2, true, 0, 2, 3, 4, {}}};
    for (const auto& c : cases) {
        CAPTURE(describe(c));
        auto b = build(c, seed);
        const std::size_t states = c.mode == "LSTM" ? 2 : 1;
        auto o = outs;
        o[1].second = states;
        auto fw = test::run_firmware_form<ops::rnn>("rnn", attrs(c), b.in, o);
        auto ref = run_rnn(c, b.in, nullptr, true);
        auto fast = run_rnn(c, b.in);
        CHECK(same_bytes(fw, ref.get("Out")));
        CHECK(test::max_rel_diff(fw.span<float>(), fast.get("Out").span<float>()) < 1e-5);
        if (c.mode != "RNN_TANH") CHECK(same_bytes(fw, fast.get("Out")));  // bit for bit
        auto e = baseline(c, b.x, b.weights, b.h0, c.mode == "LSTM" ? &b.c0 : nullptr);
        CHECK(test::max_rel_diff(fw.span<float>(), e.out) < 1e-5);
    }
}

TEST_CASE("rnn's firmware form refuses SequenceLength and float64, naming them") {
    std::uint32_t seed = 5100;
    rnn_case c{"LSTM", 1, true, 3, 2, 3, 2, {3, 1}};
    auto b = build(c, seed);
    const std::vector<std::pair<std::string, std::size_t>> outs = {{"Out", 1}, {"State", 2}};
    CHECK_THROWS_WITH_AS(test::run_firmware_form<ops::rnn>("rnn", attrs(c), b.in, outs),
                         doctest::Contains("SequenceLength"), unsupported_error);
    auto to64 = [](const tensor& t) {
        std::vector<double> v(t.span<float>().begin(), t.span<float>().end());
        return tensor::from<double>(t.shape(), std::span<const double>(v));
    };
    named_tensors in64;
    for (auto& [slot, ts] : b.in.slots)
        if (slot != "SequenceLength")
            for (auto& t : ts) in64.add(slot, to64(t));
    CHECK_THROWS_WITH_AS(test::run_firmware_form<ops::rnn>("rnn", attrs(c), in64, outs),
                         doctest::Contains("float32 only"), unsupported_error);
}

}  // namespace ops_rnn_test
