// multiclass_nms3 / nms2 / nms against a plain baseline written here: every
// attribute (score_threshold, nms_top_k, keep_top_k, nms_threshold, nms_eta,
// normalized, background_label) over random boxes whose scores tie often;
// hand cases for the tie rules; empty results; the rows flowing through a
// runtime program (planned at the bound, actual at run); bad inputs named.
#include <algorithm>
#include <tuple>

#include "litegraph/graph/graph.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_multiclass_nms_test {

namespace {
struct nms_attrs {
    float score_threshold = 0.05f;
    int nms_top_k = -1;
    int keep_top_k = -1;
    float nms_threshold = 0.5f;
    bool normalized = true;
    float nms_eta = 1.f;
    int background_label = -1;
};

attr_map attrs_of(const nms_attrs& p) {
    attr_map a;
    a.set("score_threshold", p.score_threshold);
    a.set("nms_top_k", p.nms_top_k);
    a.set("keep_top_k", p.keep_top_k);
    a.set("nms_threshold", p.nms_threshold);
    a.set("normalized", p.normalized);
    a.set("nms_eta", p.nms_eta);
    a.set("background_label", p.background_label);
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

struct result {
    std::vector<float> rows;  // 6 per row
    std::vector<int> index;
    std::vector<int> per_image;
};

result baseline(const nms_attrs& p, const tensor& boxes, const tensor& scores) {
    const auto n = scores.shape()[0], classes = scores.shape()[1], m = scores.shape()[2];
    const auto B = boxes.span<float>();
    const auto S = scores.span<float>();
    result r;
    for (std::int64_t i = 0; i < n; ++i) {
        // (score, label, rank within its class, box)
        std::vector<std::tuple<float, int, int, int>> kept;
        for (int c = 0; c < classes; ++c) {
            if (c == p.background_label) continue;
            const float* s = &S[static_cast<std::size_t>((i * classes + c) * m)];
            std::vector<int> cand;
            for (int j = 0; j < m; ++j)
                if (s[j] > p.score_threshold) cand.push_back(j);
            std::sort(cand.begin(), cand.end(),
                      [&](int a, int b) { return s[a] != s[b] ? s[a] > s[b] : a < b; });
            if (p.nms_top_k > -1 && static_cast<int>(cand.size()) > p.nms_top_k)
                cand.resize(static_cast<std::size_t>(p.nms_top_k));
            std::vector<int> sel;
            float thr = p.nms_threshold;
            for (int j : cand) {
                bool ok = true;
                for (int k : sel)
                    if (overlap(&B[static_cast<std::size_t>((i * m + j) * 4)],
                                &B[static_cast<std::size_t>((i * m + k) * 4)], p.normalized) > thr)
                        ok = false;
                if (!ok) continue;
                sel.push_back(j);
                if (p.nms_eta < 1 && thr > 0.5f) thr *= p.nms_eta;
            }
            for (std::size_t k = 0; k < sel.size(); ++k)
                kept.emplace_back(s[sel[k]], c, static_cast<int>(k), sel[k]);
        }
        if (p.keep_top_k > -1 && static_cast<int>(kept.size()) > p.keep_top_k) {
            std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
                if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
                return std::make_pair(std::get<1>(a), std::get<2>(a)) <
                       std::make_pair(std::get<1>(b), std::get<2>(b));
            });
            kept.resize(static_cast<std::size_t>(p.keep_top_k));
        }
        std::sort(kept.begin(), kept.end(), [](const auto& a, const auto& b) {
            return std::make_pair(std::get<1>(a), std::get<2>(a)) <
                   std::make_pair(std::get<1>(b), std::get<2>(b));
        });
        for (auto& [score, label, rank, box] : kept) {
            r.rows.push_back(static_cast<float>(label));
            r.rows.push_back(score);
            for (int k = 0; k < 4; ++k)
                r.rows.push_back(B[static_cast<std::size_t>((i * m + box) * 4 + k)]);
            r.index.push_back(static_cast<int>(i * m + box));
        }
        r.per_image.push_back(static_cast<int>(kept.size()));
    }
    return r;
}

// Boxes clustered so that many overlap; scores from a few levels so that ties occur.
std::pair<tensor, tensor> random_case(std::int64_t n, std::int64_t classes, std::int64_t m,
                                      std::uint32_t seed, float span) {
    auto corner = test::random_tensor({n, m, 2}, seed, 0.f, span);
    auto size = test::random_tensor({n, m, 2}, seed + 1, 0.05f * span, 0.4f * span);
    tensor boxes(dtype::f32, {n, m, 4});
    auto b = boxes.span<float>();
    for (std::int64_t i = 0; i < n * m; ++i) {
        const auto c = corner.span<float>(), s = size.span<float>();
        b[static_cast<std::size_t>(i * 4)] = c[static_cast<std::size_t>(i * 2)];
        b[static_cast<std::size_t>(i * 4 + 1)] = c[static_cast<std::size_t>(i * 2 + 1)];
        b[static_cast<std::size_t>(i * 4 + 2)] =
            c[static_cast<std::size_t>(i * 2)] + s[static_cast<std::size_t>(i * 2)];
        b[static_cast<std::size_t>(i * 4 + 3)] =
            c[static_cast<std::size_t>(i * 2 + 1)] + s[static_cast<std::size_t>(i * 2 + 1)];
    }
    auto scores = test::random_tensor({n, classes, m}, seed + 2, 0.f, 1.f);
    for (auto& v : scores.span<float>()) v = std::round(v * 8) / 8;
    return {std::move(boxes), std::move(scores)};
}

named_tensors run_nms(std::string_view type, const nms_attrs& p, const tensor& boxes,
                      const tensor& scores) {
    std::vector<std::pair<std::string, std::size_t>> outs{{"Out", 1}};
    if (type != "multiclass_nms") outs.push_back({"Index", 1});
    if (type == "multiclass_nms3") outs.push_back({"NmsRoisNum", 1});
    return invoke(type, attrs_of(p), named_tensors{}.add("BBoxes", boxes).add("Scores", scores),
                  outs);
}

std::vector<int> ints(const tensor& t) {
    auto s = t.span<std::int32_t>();
    return {s.begin(), s.end()};
}

void check_against_baseline(const nms_attrs& p, const tensor& boxes, const tensor& scores) {
    auto expect = baseline(p, boxes, scores);
    auto r = run_nms("multiclass_nms3", p, boxes, scores);
    const auto rows = static_cast<std::int64_t>(expect.index.size());
    const auto& out = r.get("Out");
    CHECK(out.shape() == shape_t{rows, 6});
    CHECK(test::max_abs_diff(out.span<float>(), expect.rows) == 0);
    CHECK(ints(r.get("Index")) == expect.index);
    CHECK(ints(r.get("NmsRoisNum")) == expect.per_image);
    lod_t lod{{0}};
    for (int k : expect.per_image) lod[0].push_back(lod[0].back() + k);
    CHECK(out.lod() == lod);
}
}  // namespace

TEST_CASE("multiclass_nms3 matches the baseline for every attribute") {
    std::uint32_t seed = 11;
    for (bool normalized : {true, false})
        for (int nms_top_k : {-1, 4})
            for (int keep_top_k : {-1, 0, 6})
                for (float eta : {1.f, 0.8f})
                    for (int background : {-1, 0, 2}) {
                        nms_attrs p;
                        p.normalized = normalized;
                        p.nms_top_k = nms_top_k;
                        p.keep_top_k = keep_top_k;
                        p.nms_eta = eta;
                        p.nms_threshold = eta < 1 ? 0.7f : 0.4f;
                        p.background_label = background;
                        p.score_threshold = 0.2f;
                        CAPTURE(normalized);
                        CAPTURE(nms_top_k);
                        CAPTURE(keep_top_k);
                        CAPTURE(eta);
                        CAPTURE(background);
                        auto [boxes, scores] =
                            random_case(2, 3, 12, seed++, normalized ? 1.f : 20.f);
                        check_against_baseline(p, boxes, scores);
                    }
}

TEST_CASE("multiclass_nms breaks ties as Paddle does") {
    // Class 0: boxes 0 and 1 identical with the same score: box 0 (first) is
    // kept and suppresses box 1.  Class 1: box 2 ties box 0's score.
    // keep_top_k = 2 over {c0 b0 .9, c0 b3 .9, c1 b2 .9}: the two of class 0
    // (earlier class) stay, in NMS order.
    const std::vector<float> b{0, 0, 1, 1, 0, 0, 1, 1, 5, 5, 6, 6, 10, 10, 11, 11};
    const std::vector<float> s{0.9f, 0.9f, 0.1f, 0.9f,  // class 0
                               0.f,  0.f,  0.9f, 0.f};  // class 1
    auto boxes = tensor::from<float>({1, 4, 4}, b);
    auto scores = tensor::from<float>({1, 2, 4}, s);
    nms_attrs p;
    p.score_threshold = 0.05f;
    p.keep_top_k = 2;
    auto r = run_nms("multiclass_nms3", p, boxes, scores);
    const std::vector<float> expect{0, 0.9f, 0, 0, 1, 1, 0, 0.9f, 10, 10, 11, 11};
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), expect) == 0);
    CHECK(ints(r.get("Index")) == std::vector<int>{0, 3});
    check_against_baseline(p, boxes, scores);
    p.keep_top_k = -1;
    r = run_nms("multiclass_nms3", p, boxes, scores);
    CHECK(r.get("Out").shape() == shape_t{4, 6});  // c0: b0, b3, b2 (0.1); c1: b2
    CHECK(ints(r.get("Index")) == std::vector<int>{0, 3, 2, 2});
    check_against_baseline(p, boxes, scores);
}

TEST_CASE("multiclass_nms with nothing above the threshold") {
    auto [boxes, scores] = random_case(2, 3, 5, 99, 1.f);
    nms_attrs p;
    p.score_threshold = 2.f;
    auto r3 = run_nms("multiclass_nms3", p, boxes, scores);
    CHECK(r3.get("Out").shape() == shape_t{0, 6});
    CHECK(r3.get("Index").shape() == shape_t{0, 1});
    CHECK(ints(r3.get("NmsRoisNum")) == std::vector<int>{0, 0});
    CHECK(r3.get("Out").lod() == lod_t{{0, 0, 0}});
    auto r2 = run_nms("multiclass_nms2", p, boxes, scores);
    CHECK(r2.get("Out").shape() == shape_t{0, 6});
    // multiclass_nms (no Index): one row holding -1.
    auto r1 = run_nms("multiclass_nms", p, boxes, scores);
    CHECK(r1.get("Out").shape() == shape_t{1, 1});
    CHECK(r1.get("Out").span<float>()[0] == -1.f);
    CHECK(r1.get("Out").lod() == lod_t{{0, 1}});
    // No box at all (M = 0) and no image (N = 0).
    auto r0 = run_nms("multiclass_nms3", nms_attrs{}, tensor(dtype::f32, {1, 0, 4}),
                      tensor(dtype::f32, {1, 3, 0}));
    CHECK(r0.get("Out").shape() == shape_t{0, 6});
    CHECK(ints(r0.get("NmsRoisNum")) == std::vector<int>{0});
    auto rn = run_nms("multiclass_nms3", nms_attrs{}, tensor(dtype::f32, {0, 5, 4}),
                      tensor(dtype::f32, {0, 3, 5}));
    CHECK(rn.get("Out").shape() == shape_t{0, 6});
}

TEST_CASE("multiclass_nms names inputs it does not handle") {
    auto [boxes, scores] = random_case(1, 2, 4, 5, 1.f);
    nms_attrs p;
    CHECK_THROWS_WITH_AS(run_nms("multiclass_nms3", p, boxes, tensor(dtype::f32, {4})),
                         doctest::Contains("Scores must be [N, C, M] or [M, C]"), shape_error);
    CHECK_THROWS_WITH_AS(
        run_nms("multiclass_nms3", p, tensor(dtype::f32, {4, 2, 4}), tensor(dtype::f32, {4, 2})),
        doctest::Contains("a RoisNum input or a LoD on BBoxes"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("multiclass_nms3", attrs_of(p),
                                named_tensors{}
                                    .add("BBoxes", tensor(dtype::f32, {4, 2, 4}))
                                    .add("Scores", tensor(dtype::f32, {4, 2}))
                                    .add("RoisNum", tensor::from<std::int32_t>(
                                                        {2}, std::vector<std::int32_t>{3, 2})),
                                {{"Out", 1}, {"Index", 1}, {"NmsRoisNum", 1}}),
                         doctest::Contains("RoisNum[1] = 2"), shape_error);
    CHECK_THROWS_WITH_AS(run_nms("multiclass_nms3", p, tensor(dtype::f32, {1, 4, 8}), scores),
                         doctest::Contains("box size 8 is not supported"), shape_error);
    CHECK_THROWS_WITH_AS(run_nms("multiclass_nms3", p, tensor(dtype::f32, {1, 5, 4}), scores),
                         doctest::Contains("BBoxes must be [N, M, 4]"), shape_error);
    CHECK_THROWS_WITH_AS(run_nms("multiclass_nms3", p, boxes, tensor(dtype::f64, {1, 2, 4})),
                         doctest::Contains("must have one dtype"), shape_error);
    attr_map a = attrs_of(p);
    a.set("nms_eta", 0.f);
    CHECK_THROWS_WITH_AS(make_instance("multiclass_nms3", a), doctest::Contains("nms_eta"),
                         unsupported_error);
}

TEST_CASE("detections flow through a program: planned at the bound, actual rows at run") {
    // boxes, scores (feeds) -> multiclass_nms3 -> out -> scale(2) -> y
    graph::graph g;
    graph::builder b(g);
    b.declare("boxes", {-1, 6, 4});
    b.declare("scores", {-1, 2, 6});
    b.declare("out", {-1, 6});
    b.declare("index", {-1, 1}, dtype::i32);
    b.declare("num", {-1}, dtype::i32);
    b.declare("y", {-1, 6});
    b.feed("boxes", 0);
    b.feed("scores", 1);
    nms_attrs p;
    p.keep_top_k = 5;
    p.score_threshold = 0.3f;
    b.add_op("multiclass_nms3", {{"BBoxes", {"boxes"}}, {"Scores", {"scores"}}},
             {{"Out", {"out"}}, {"Index", {"index"}}, {"NmsRoisNum", {"num"}}}, attrs_of(p));
    attr_map twice;
    twice.set("scale", 2.f);
    b.add_op("scale", {{"X", {"out"}}}, {{"Out", {"y"}}}, twice);
    b.fetch("y", 0);
    b.fetch("num", 1);
    b.finish();
    runtime::program prog(std::move(g));
    for (std::uint32_t seed : {1u, 2u, 3u}) {
        auto [boxes, scores] = random_case(3, 2, 6, seed * 7, 1.f);
        prog.set_input("boxes", boxes);
        prog.set_input("scores", scores);
        prog.run();
        auto expect = baseline(p, boxes, scores);
        const auto rows = static_cast<std::int64_t>(expect.index.size());
        CHECK(prog.output(0).shape == shape_t{rows, 6});
        for (auto& v : expect.rows) v *= 2;
        CHECK(test::max_abs_diff(prog.output(0).span<float>(), expect.rows) == 0);
        CHECK(ints(tensor::from<std::int32_t>({3}, prog.output(1).span<std::int32_t>())) ==
              expect.per_image);
        // The scale shares the detections' LoD.
        CHECK(prog.output_lod(0).size() == 1);
        CHECK(prog.output_lod(0)[0].back() == rows);
        // The arena holds the bound: 3 images x keep_top_k 5 rows, twice (out, y).
        CHECK(prog.memory().arena_bytes >= 2 * 15 * 6 * sizeof(float));
    }
}

TEST_CASE("a concat of detections is not placed in place: its inputs' rows are known at run") {
    // Two NMS (thresholds 0.3 and 0.6) -> concat on axis 0, marked in place as
    // the in_place pass would: its slices would sit at the bound offsets.
    graph::graph g;
    graph::builder b(g);
    b.declare("boxes", {-1, 6, 4});
    b.declare("scores", {-1, 2, 6});
    for (const char* n : {"a", "b", "y"}) b.declare(n, {-1, 6});
    b.feed("boxes", 0);
    b.feed("scores", 1);
    nms_attrs lo, hi;
    lo.score_threshold = 0.3f;
    hi.score_threshold = 0.6f;
    b.add_op("multiclass_nms", {{"BBoxes", {"boxes"}}, {"Scores", {"scores"}}}, {{"Out", {"a"}}},
             attrs_of(lo));
    b.add_op("multiclass_nms", {{"BBoxes", {"boxes"}}, {"Scores", {"scores"}}}, {{"Out", {"b"}}},
             attrs_of(hi));
    attr_map cat;
    cat.set("axis", 0);
    cat.set("in_place", std::string("X"));
    b.add_op("concat", {{"X", {"a", "b"}}}, {{"Out", {"y"}}}, cat);
    b.fetch("y", 0);
    b.finish();
    runtime::program prog(std::move(g));
    auto [boxes, scores] = random_case(1, 2, 6, 77, 1.f);
    prog.set_input("boxes", boxes);
    prog.set_input("scores", scores);
    prog.run();
    auto expect = baseline(lo, boxes, scores).rows;
    auto more = baseline(hi, boxes, scores).rows;
    REQUIRE(!expect.empty());
    REQUIRE(!more.empty());
    expect.insert(expect.end(), more.begin(), more.end());
    CHECK(prog.output(0).shape == shape_t{static_cast<std::int64_t>(expect.size() / 6), 6});
    CHECK(test::max_abs_diff(prog.output(0).span<float>(), expect) == 0);
    for (auto& ins : prog.instructions()) CHECK(!ins.elided);
}

namespace {
// Rank-2 scores [M, C] with per-class boxes [M, C, 4], images by row offsets.
result baseline_lod(const nms_attrs& p, const tensor& boxes, const tensor& scores,
                    const std::vector<std::int64_t>& off) {
    const auto classes = scores.shape()[1];
    const auto B = boxes.span<float>();
    const auto S = scores.span<float>();
    result r;
    for (std::size_t i = 0; i + 1 < off.size(); ++i) {
        const auto s0 = off[i], m = off[i + 1] - off[i];
        auto score = [&](std::int64_t c, std::int64_t j) {
            return S[static_cast<std::size_t>((s0 + j) * classes + c)];
        };
        auto box = [&](std::int64_t c, std::int64_t j) {
            return &B[static_cast<std::size_t>(((s0 + j) * classes + c) * 4)];
        };
        std::vector<std::tuple<float, int, int>> kept;  // score, label, box
        for (int c = 0; c < classes; ++c) {
            if (c == p.background_label) continue;
            std::vector<int> cand;
            for (int j = 0; j < m; ++j)
                if (score(c, j) > p.score_threshold) cand.push_back(j);
            std::sort(cand.begin(), cand.end(), [&](int a, int b) {
                return score(c, a) != score(c, b) ? score(c, a) > score(c, b) : a < b;
            });
            if (p.nms_top_k > -1 && static_cast<int>(cand.size()) > p.nms_top_k)
                cand.resize(static_cast<std::size_t>(p.nms_top_k));
            std::vector<int> sel;
            float thr = p.nms_threshold;
            for (int j : cand) {
                bool ok = true;
                for (int k : sel)
                    if (overlap(box(c, j), box(c, k), p.normalized) > thr) ok = false;
                if (!ok) continue;
                sel.push_back(j);
                if (p.nms_eta < 1 && thr > 0.5f) thr *= p.nms_eta;
            }
            for (int j : sel) kept.emplace_back(score(c, j), c, j);
        }
        auto by_label_box = [](const auto& a, const auto& b) {
            return std::make_pair(std::get<1>(a), std::get<2>(a)) <
                   std::make_pair(std::get<1>(b), std::get<2>(b));
        };
        if (p.keep_top_k > -1 && static_cast<int>(kept.size()) > p.keep_top_k) {
            std::sort(kept.begin(), kept.end(), [&](const auto& a, const auto& b) {
                if (std::get<0>(a) != std::get<0>(b)) return std::get<0>(a) > std::get<0>(b);
                return by_label_box(a, b);
            });
            kept.resize(static_cast<std::size_t>(p.keep_top_k));
        }
        std::sort(kept.begin(), kept.end(), by_label_box);
        for (auto& [sc, label, j] : kept) {
            r.rows.push_back(static_cast<float>(label));
            r.rows.push_back(sc);
            for (int k = 0; k < 4; ++k) r.rows.push_back(box(label, j)[k]);
            r.index.push_back(static_cast<int>((s0 + j) * classes + label));
        }
        r.per_image.push_back(static_cast<int>(kept.size()));
    }
    return r;
}
}  // namespace

TEST_CASE("multiclass_nms3 with rank-2 scores: images from BBoxes' LoD or RoisNum") {
    const std::vector<std::int64_t> off{0, 7, 7, 12, 20};  // an image without boxes
    const std::int64_t classes = 3, m = off.back();
    std::uint32_t seed = 300;
    for (bool normalized : {true, false})
        for (int nms_top_k : {-1, 3})
            for (int keep_top_k : {-1, 4})
                for (int background : {-1, 1}) {
                    nms_attrs p;
                    p.normalized = normalized;
                    p.nms_top_k = nms_top_k;
                    p.keep_top_k = keep_top_k;
                    p.background_label = background;
                    p.score_threshold = 0.2f;
                    p.nms_threshold = 0.4f;
                    CAPTURE(normalized);
                    CAPTURE(nms_top_k);
                    CAPTURE(keep_top_k);
                    CAPTURE(background);
                    // Per-class boxes: a [1, M * C, 4] case viewed as [M, C, 4].
                    auto [b3, s3] = random_case(1, 1, m * classes, seed++, normalized ? 1.f : 20.f);
                    tensor boxes(dtype::f32, {m, classes, 4});
                    std::copy(b3.span<float>().begin(), b3.span<float>().end(),
                              boxes.span<float>().begin());
                    tensor scores(dtype::f32, {m, classes});
                    std::copy(s3.span<float>().begin(), s3.span<float>().end(),
                              scores.span<float>().begin());
                    auto expect = baseline_lod(p, boxes, scores, off);
                    const auto rows = static_cast<std::int64_t>(expect.index.size());
                    auto check = [&](const named_tensors& r) {
                        CHECK(r.get("Out").shape() == shape_t{rows, 6});
                        CHECK(test::max_abs_diff(r.get("Out").span<float>(), expect.rows) == 0);
                        CHECK(ints(r.get("Index")) == expect.index);
                        CHECK(ints(r.get("NmsRoisNum")) == expect.per_image);
                    };
                    auto with_lod = boxes;
                    with_lod.set_lod({off});
                    check(run_nms("multiclass_nms3", p, with_lod, scores));
                    std::vector<std::int32_t> counts;
                    for (std::size_t i = 0; i + 1 < off.size(); ++i)
                        counts.push_back(static_cast<std::int32_t>(off[i + 1] - off[i]));
                    check(invoke("multiclass_nms3", attrs_of(p),
                                 named_tensors{}
                                     .add("BBoxes", boxes)
                                     .add("Scores", scores)
                                     .add("RoisNum", tensor::from<std::int32_t>({4}, counts)),
                                 {{"Out", 1}, {"Index", 1}, {"NmsRoisNum", 1}}));
                }
}

}  // namespace ops_multiclass_nms_test
