// The planner on the activations of real models, planned as `litegraph plan`
// plans them (litegraph::plan_problem_of): every shared model, fused and not,
// and a model split over two segments.  Skips when ../shared is absent.
#include <algorithm>
#include <string>

#include "litegraph/planner/planner.hpp"
#include "litegraph/session.hpp"
#include "support.hpp"

using namespace litegraph::planner;

namespace {

const segment arena64{"arena", unbounded, 64};

/// A shared model's activations, prepared with the pass pipeline or not.
litegraph::runtime::plan_problem model_problem(const std::filesystem::path& dir, bool fuse) {
    litegraph::session_options opt;
    opt.fuse = fuse;
    opt.load.require_params = false;
    return litegraph::plan_problem_of(dir.string(), opt);
}

void require_valid(std::span<const buffer> b, std::span<const segment> s, const plan& p) {
    auto v = validate(b, s, p);
    INFO("algorithm " << std::string(p.algorithm) << ": " << std::string(v.what) << " (buffer "
                      << v.buffer << ", other " << v.other << ")");
    REQUIRE(v.ok);
}

}  // namespace

TEST_CASE("equal sizes in residual blocks: ours reaches LOAD where index order needs a slot more") {
    // The 3,211,264-byte activations of resnet50_int8_qat_224 (declared
    // shapes) over its first 75 steps, in the model's buffer order.  Three are
    // live at once at most; first fit in index order (TFLM's tie-break) needs
    // four slots, first fit in order of first use needs three.
    const std::vector<std::pair<int, int>> life{
        {51, 52}, {5, 6},   {27, 29}, {69, 71}, {21, 23}, {53, 54}, {1, 2},   {24, 28}, {2, 3},
        {29, 30}, {23, 24}, {68, 70}, {30, 31}, {73, 74}, {31, 48}, {52, 69}, {47, 49}, {28, 29},
        {3, 4},   {22, 25}, {49, 50}, {70, 71}, {71, 72}, {26, 27}, {25, 26}, {46, 47}, {50, 51},
        {32, 33}, {67, 68}, {45, 46}, {6, 7},   {72, 73}, {66, 67}, {48, 50}, {4, 5}};
    const std::size_t slot = 3211264;
    std::vector<buffer> b;
    for (auto [f, l] : life) b.push_back({slot, f, l});
    const std::span<const segment> one(&arena64, 1);
    REQUIRE(lower_bound(b) == 3 * slot);
    auto tflm = tflm_greedy(b, 64);
    auto sff = size_first_fit(b, one);
    auto ours = plan_memory(b, one);
    for (auto* p : {&tflm, &sff, &ours}) require_valid(b, one, *p);
    CHECK(tflm.total() == 4 * slot);
    CHECK(sff.total() == 3 * slot);
    CHECK(ours.total() == 3 * slot);
    CHECK(ours.proven_optimal);
}

TEST_CASE("resnet50 (topology only): fused, the plan is LOAD; unfused, a third below TFLM") {
    auto dir = litegraph::test::shared_model("resnet50_int8_qat_224", "models_topology_only");
    if (dir.empty()) return;
    const std::span<const segment> one(&arena64, 1);
    // Fused, the quant-dequant pairs fold away and shapes infer.
    auto fused = model_problem(dir, true);
    CHECK(fused.shapes == "inferred");
    auto plan = plan_memory(fused.buffers, one);
    require_valid(fused.buffers, one, plan);
    CHECK(lower_bound(fused.buffers) == 9633792);
    CHECK(plan.total() == lower_bound(fused.buffers));
    // Unfused, the moving-average scales have no values in a topology-only
    // model, so the problem falls back to the declared shapes.
    auto raw = model_problem(dir, false);
    CHECK(raw.shapes == "declared");
    auto ours = plan_memory(raw.buffers, one);
    require_valid(raw.buffers, one, ours);
    const auto load = lower_bound(raw.buffers);
    CHECK(load == 9633920);
    CHECK(ours.total() == load);
    CHECK(tflm_greedy(raw.buffers, 64).total() >= 4 * std::size_t{3211264});
}

TEST_CASE("every shared model, fused and not: valid, plan / LOAD <= 1.01, never above TFLM") {
    auto dirs = litegraph::test::shared_model_dirs();
    if (dirs.empty()) {
        MESSAGE("skipped: no shared models under " << litegraph::test::shared_dir().string());
        return;
    }
    const std::span<const segment> one(&arena64, 1);
    int planned = 0;
    for (auto& dir : dirs)
        for (bool fuse : {true, false}) {
            INFO(dir.string() << (fuse ? " (fused)" : " (--no-fuse)"));
            auto prob = model_problem(dir, fuse);
            auto ours = plan_memory(prob.buffers, one);
            auto tflm = tflm_greedy(prob.buffers, 64);
            require_valid(prob.buffers, one, ours);
            require_valid(prob.buffers, one, tflm);
            const auto load = lower_bound(prob.buffers);
            CAPTURE(load);
            CAPTURE(ours.total());
            CAPTURE(tflm.total());
            REQUIRE(ours.fits);
            CHECK(ours.total() >= load);
            CHECK(double(ours.total()) <= 1.01 * double(load));
            CHECK(ours.total() <= tflm.total());
            ++planned;
        }
    CHECK(planned >= 2 * 15);
}

TEST_CASE("ppocr_mobile_v2.0_cls over two segments: fits in neither alone, in both together") {
    auto dir = litegraph::test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    auto prob = model_problem(dir, true);
    const auto& b = prob.buffers;
    const auto load = lower_bound(b);
    REQUIRE(load == 64000);
    // A fast segment of 48 KiB and a slow one of 32 KiB: each is below LOAD
    // (and the largest buffer, 41,600 bytes, fits only the fast one).
    const std::vector<segment> both{{"dtcm", 48 * 1024, 64}, {"sram", 32 * 1024, 64}};
    for (std::size_t s = 0; s < both.size(); ++s) {
        auto alone = plan_memory(b, std::span(&both[s], 1));
        CHECK_FALSE(alone.fits);
        CHECK(alone.shortfall > 0);
    }
    auto p = plan_memory(b, both);
    require_valid(b, both, p);
    REQUIRE(p.fits);
    // The fast segment is filled first: most of it is used, more than the
    // slow one, and it holds the largest buffer.
    CAPTURE(p.used[0]);
    CAPTURE(p.used[1]);
    CHECK(p.used[0] >= both[0].capacity * 9 / 10);
    CHECK(p.used[0] >= p.used[1]);
    CHECK(p.total() >= load);
    std::size_t largest = 0;
    for (std::size_t i = 1; i < b.size(); ++i)
        if (b[i].size > b[largest].size) largest = i;
    CHECK(p.placements[largest].segment == 0);
    // Every buffer in the slow segment is one the fast segment could not
    // take as placed: it collides there with a buffer live at the same time,
    // or would end past the fast capacity at every free offset.
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (p.placements[i].segment != 1) continue;
        CAPTURE(i);
        std::vector<std::pair<std::size_t, std::size_t>> busy;
        for (std::size_t j = 0; j < b.size(); ++j)
            if (j != i && p.placements[j].segment == 0 && overlaps_in_time(b[i], b[j]))
                busy.push_back({p.placements[j].offset, p.placements[j].offset + b[j].size});
        std::sort(busy.begin(), busy.end());
        bool room = false;
        std::size_t cursor = 0;
        for (auto [o, e] : busy) {
            if (align_up(cursor, 64) + b[i].size <= o) room = true;
            cursor = std::max(cursor, e);
        }
        if (align_up(cursor, 64) + b[i].size <= both[0].capacity) room = true;
        CHECK_FALSE(room);
    }
}
