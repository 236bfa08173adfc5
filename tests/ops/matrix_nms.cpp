// matrix_nms against a plain baseline written here in the matrix form of the
// paper (the whole IoU matrix, column maxima, then the decay of each box):
// every attribute (score_threshold, post_threshold, nms_top_k, keep_top_k,
// use_gaussian, gaussian_sigma, background_label, normalized) over random
// boxes whose scores tie often; a hand case of the decay; no detection; the
// rows flowing through a program; bad inputs named.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "litegraph/graph/graph.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_matrix_nms_test {

namespace {

struct mnms_attrs {
    float score_threshold = 0.1f;
    float post_threshold = 0.f;
    int nms_top_k = -1;
    int keep_top_k = -1;
    bool use_gaussian = false;
    float gaussian_sigma = 2.f;
    int background_label = -1;
    bool normalized = true;
};

attr_map attrs_of(const mnms_attrs& p) {
    attr_map a;
    a.set("score_threshold", p.score_threshold);
    a.set("post_threshold", p.post_threshold);
    a.set("nms_top_k", p.nms_top_k);
    a.set("keep_top_k", p.keep_top_k);
    a.set("use_gaussian", p.use_gaussian);
    a.set("gaussian_sigma", p.gaussian_sigma);
    a.set("background_label", p.background_label);
    a.set("normalized", p.normalized);
    return a;
}

float overlap(const float* a, const float* b, bool normalized) {
    const float one = normalized ? 0.f : 1.f;
    auto area = [&](const float* x) {
        if (x[2] < x[0] || x[3] < x[1]) return 0.f;
        return (x[2] - x[0] + one) * (x[3] - x[1] + one);
    };
    if (b[0] > a[2] || b[2] < a[0] || b[1] > a[3] || b[3] < a[1]) return 0.f;
    const float w = std::min(a[2], b[2]) - std::max(a[0], b[0]) + one;
    const float h = std::min(a[3], b[3]) - std::max(a[1], b[1]) + one;
    return w * h / (area(a) + area(b) - w * h);
}

struct det {
    float label, score;
    int index;
};

/// Per image: detections in output order.
std::vector<std::vector<det>> baseline(const mnms_attrs& p, const tensor& boxes,
                                       const tensor& scores) {
    const auto n = scores.shape()[0], classes = scores.shape()[1], m = scores.shape()[2];
    const auto B = boxes.span<float>();
    const auto S = scores.span<float>();
    std::vector<std::vector<det>> out;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<det> all;
        for (std::int64_t c = 0; c < classes; ++c) {
            if (c == p.background_label) continue;
            const float* s = S.data() + (i * classes + c) * m;
            // Candidates by repeated selection of the best remaining (first on ties).
            std::vector<int> cand;
            std::vector<bool> used(static_cast<std::size_t>(m), false);
            for (;;) {
                int best = -1;
                for (int b = 0; b < m; ++b)
                    if (!used[b] && s[b] > p.score_threshold && (best < 0 || s[b] > s[best]))
                        best = b;
                if (best < 0) break;
                used[best] = true;
                cand.push_back(best);
            }
            if (p.nms_top_k >= 0 && static_cast<int>(cand.size()) > p.nms_top_k)
                cand.resize(static_cast<std::size_t>(p.nms_top_k));
            const std::size_t k = cand.size();
            // The upper-triangular IoU matrix and its column maxima.
            std::vector<std::vector<float>> iou(k, std::vector<float>(k, 0.f));
            for (std::size_t a = 0; a < k; ++a)
                for (std::size_t b = a + 1; b < k; ++b)
                    iou[a][b] = overlap(B.data() + (i * m + cand[b]) * 4,
                                        B.data() + (i * m + cand[a]) * 4, p.normalized);
            std::vector<float> comp(k, 0.f);
            for (std::size_t b = 0; b < k; ++b)
                for (std::size_t a = 0; a < b; ++a) comp[b] = std::max(comp[b], iou[a][b]);
            for (std::size_t b = 0; b < k; ++b) {
                float decay = 1.f;
                for (std::size_t a = 0; a < b; ++a) {
                    const float d = p.use_gaussian
                                        ? std::exp((comp[a] * comp[a] - iou[a][b] * iou[a][b]) *
                                                   p.gaussian_sigma)
                                        : (1.f - iou[a][b]) / (1.f - comp[a]);
                    decay = std::min(decay, d);
                }
                const float ds = decay * s[cand[b]];
                if (ds > p.post_threshold)
                    all.push_back({static_cast<float>(c), ds, static_cast<int>(i * m + cand[b])});
            }
        }
        // Best decayed scores first; ties keep their order (class, then rank).
        std::vector<det> sorted;
        std::vector<bool> taken(all.size(), false);
        for (std::size_t r = 0; r < all.size(); ++r) {
            int best = -1;
            for (std::size_t q = 0; q < all.size(); ++q)
                if (!taken[q] &&
                    (best < 0 || all[q].score > all[static_cast<std::size_t>(best)].score))
                    best = static_cast<int>(q);
            taken[static_cast<std::size_t>(best)] = true;
            sorted.push_back(all[static_cast<std::size_t>(best)]);
        }
        if (p.keep_top_k >= 0 && static_cast<int>(sorted.size()) > p.keep_top_k)
            sorted.resize(static_cast<std::size_t>(p.keep_top_k));
        out.push_back(sorted);
    }
    return out;
}

/// Random boxes (some overlapping heavily, some inverted) and scores on a
/// coarse grid (ties are common).
std::pair<tensor, tensor> random_case(std::int64_t n, std::int64_t c, std::int64_t m,
                                      std::uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    tensor boxes(dtype::f32, {n, m, 4}), scores(dtype::f32, {n, c, m});
    auto b = boxes.span<float>();
    for (std::int64_t i = 0; i < n * m; ++i) {
        const float x = u(rng) * scale, y = u(rng) * scale;
        const float w = u(rng) * scale * 0.5f, h = u(rng) * scale * 0.5f;
        const bool inverted = u(rng) < 0.05f;
        b[i * 4 + 0] = x;
        b[i * 4 + 1] = y;
        b[i * 4 + 2] = inverted ? x - w : x + w;
        b[i * 4 + 3] = y + h;
    }
    for (auto& s : scores.span<float>()) s = std::floor(u(rng) * 8.f) / 8.f;
    return {boxes, scores};
}

named_tensors run_mnms(const mnms_attrs& p, const tensor& boxes, const tensor& scores) {
    return invoke("matrix_nms", attrs_of(p),
                  named_tensors{}.add("BBoxes", boxes).add("Scores", scores),
                  {{"Out", 1}, {"Index", 1}, {"RoisNum", 1}});
}

void check_against_baseline(const mnms_attrs& p, const tensor& boxes, const tensor& scores) {
    const auto want = baseline(p, boxes, scores);
    const auto r = run_mnms(p, boxes, scores);
    const auto& out = r.get("Out");
    const auto& index = r.get("Index");
    const auto& num = r.get("RoisNum");
    std::size_t total = 0;
    for (auto& v : want) total += v.size();
    REQUIRE(out.shape() == shape_t{static_cast<std::int64_t>(total), 6});
    REQUIRE(index.shape() == shape_t{static_cast<std::int64_t>(total), 1});
    REQUIRE(num.shape() == shape_t{static_cast<std::int64_t>(want.size())});
    const auto o = out.span<float>();
    const auto ix = index.span<std::int32_t>();
    const auto B = boxes.span<float>();
    std::size_t row = 0;
    lod_t lod{{0}};
    for (std::size_t i = 0; i < want.size(); ++i) {
        CHECK(num.span<std::int32_t>()[i] == static_cast<std::int32_t>(want[i].size()));
        for (const auto& d : want[i]) {
            CAPTURE(row);
            CHECK(o[row * 6 + 0] == d.label);
            CHECK(std::abs(o[row * 6 + 1] - d.score) <= 1e-6f * std::max(1.f, std::abs(d.score)));
            CHECK(ix[row] == d.index);
            for (int k = 0; k < 4; ++k) CHECK(o[row * 6 + 2 + k] == B[d.index * 4 + k]);
            ++row;
        }
        lod[0].push_back(static_cast<std::int64_t>(row));
    }
    if (!want.empty()) CHECK(out.lod() == lod);
}

}  // namespace

TEST_CASE("matrix_nms matches the matrix-form baseline for every attribute") {
    std::uint32_t seed = 1;
    for (bool gaussian : {false, true})
        for (bool normalized : {true, false})
            for (int top_k : {-1, 3})
                for (int keep : {-1, 0, 4})
                    for (int background : {-1, 0, 2})
                        for (float post : {0.f, 0.2f}) {
                            mnms_attrs p;
                            p.use_gaussian = gaussian;
                            p.gaussian_sigma = gaussian ? 0.5f : 2.f;
                            p.normalized = normalized;
                            p.nms_top_k = top_k;
                            p.keep_top_k = keep;
                            p.background_label = background;
                            p.post_threshold = post;
                            CAPTURE(gaussian);
                            CAPTURE(normalized);
                            CAPTURE(top_k);
                            CAPTURE(keep);
                            CAPTURE(background);
                            CAPTURE(post);
                            auto [boxes, scores] =
                                random_case(2, 3, 7, seed++, normalized ? 1.f : 20.f);
                            check_against_baseline(p, boxes, scores);
                        }
}

TEST_CASE("matrix_nms decays by the IoU with a higher-scored box (hand case)") {
    // Two boxes of one class overlapping with IoU 1/3, a third apart.
    const std::vector<float> box_values{0, 0, 2, 2, 1, 0, 3, 2, 10, 10, 11, 11};
    const std::vector<float> score_values{0.9f, 0.8f, 0.7f};
    tensor boxes = tensor::from<float>({1, 3, 4}, box_values);
    tensor scores = tensor::from<float>({1, 1, 3}, score_values);
    mnms_attrs p;
    p.background_label = -1;
    auto r = run_mnms(p, boxes, scores);
    const auto o = r.get("Out").span<float>();
    REQUIRE(r.get("Out").shape() == shape_t{3, 6});
    // Linear: box 1 decays by (1 - 1/3) / (1 - 0) = 2/3; box 2 does not overlap.
    // Rows by decayed score: 0.9, 0.7 (box 2), 0.533 (box 1).
    CHECK(o[1] == doctest::Approx(0.9f));
    CHECK(o[7] == doctest::Approx(0.7f));
    CHECK(o[13] == doctest::Approx(0.8f * 2.f / 3.f));
    CHECK(r.get("Index").span<std::int32_t>()[1] == 2);
    CHECK(r.get("Index").span<std::int32_t>()[2] == 1);
    p.use_gaussian = true;
    p.gaussian_sigma = 2.f;
    auto g = run_mnms(p, boxes, scores);
    // Gaussian: exp((0 - (1/3)^2) * 2).
    CHECK(g.get("Out").span<float>()[13] ==
          doctest::Approx(0.8f * std::exp(-2.f / 9.f)).epsilon(1e-6));
}

TEST_CASE("matrix_nms with nothing above the thresholds gives no row") {
    auto [boxes, scores] = random_case(2, 2, 5, 9, 1.f);
    mnms_attrs p;
    p.score_threshold = 2.f;
    auto r = run_mnms(p, boxes, scores);
    CHECK(r.get("Out").shape() == shape_t{0, 6});
    CHECK(r.get("Index").shape() == shape_t{0, 1});
    CHECK(r.get("RoisNum").span<std::int32_t>()[0] == 0);
    CHECK(r.get("RoisNum").span<std::int32_t>()[1] == 0);
}

TEST_CASE("matrix_nms rows flow through a program: planned at the bound, actual at run") {
    graph::graph g;
    graph::builder b(g);
    b.declare("boxes", {-1, 6, 4});
    b.declare("scores", {-1, 2, 6});
    b.declare("out", {-1, 6});
    b.declare("index", {-1, 1}, dtype::i32);
    b.declare("num", {-1}, dtype::i32);
    b.feed("boxes", 0);
    b.feed("scores", 1);
    mnms_attrs p;
    p.keep_top_k = 5;
    b.add_op("matrix_nms", {{"BBoxes", {"boxes"}}, {"Scores", {"scores"}}},
             {{"Out", {"out"}}, {"Index", {"index"}}, {"RoisNum", {"num"}}}, attrs_of(p));
    b.fetch("out", 0);
    b.fetch("num", 1);
    b.finish();
    runtime::program prog(std::move(g));
    auto [boxes, scores] = random_case(3, 2, 6, 4, 1.f);
    prog.set_input(0, boxes);
    prog.set_input(1, scores);
    prog.run();
    const auto want = baseline(p, boxes, scores);
    std::size_t total = 0;
    for (auto& v : want) total += v.size();
    CHECK(prog.output(0).shape == shape_t{static_cast<std::int64_t>(total), 6});
    CHECK(prog.output(1).shape == shape_t{3});
}

TEST_CASE("matrix_nms names inputs it does not handle") {
    auto [boxes, scores] = random_case(1, 2, 4, 3, 1.f);
    mnms_attrs p;
    CHECK_THROWS_WITH_AS(run_mnms(p, test::random_tensor({1, 4, 5}, 1), scores),
                         doctest::Contains("box size 5 is not supported"), shape_error);
    CHECK_THROWS_WITH_AS(run_mnms(p, boxes, test::random_tensor({1, 2, 3}, 2)),
                         doctest::Contains("BBoxes must be [N, M, 4] for Scores [1,2,3]"),
                         shape_error);
    CHECK_THROWS_WITH_AS(run_mnms(p, boxes, test::random_tensor({2, 4}, 2)),
                         doctest::Contains("Scores must be [N, C, M]"), shape_error);
    attr_map a;  // score_threshold, nms_top_k and keep_top_k have no default
    a.set("score_threshold", 0.1f);
    CHECK_THROWS_AS(
        invoke("matrix_nms", a, named_tensors{}.add("BBoxes", boxes).add("Scores", scores),
               {{"Out", 1}}),
        error);
}

}  // namespace ops_matrix_nms_test
