// The parameter-less topologies that need the sequence and 3-D ops:
// models_topology_only/lac_gru_crf (lookup_table, gru, crf_decoding, LoD) and
// models_topology_only/tsm_conv3d (conv3d in a ResNet-like video model) have
// only supported ops, and their shapes infer and plan from the declared
// weights (what `litegraph plan` reports as "shapes inferred").
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_topology_only_test {

namespace {
void check_plans(const std::string& name, const shape_t& feed_shape, const lod_t& lod,
                 const std::vector<std::string>& needs) {
    auto dir = test::shared_model(name, "models_topology_only");
    if (dir.empty()) return;
    INFO("model " << name);
    paddle::load_options o;
    o.require_params = false;
    auto m = paddle::load(dir, o);
    for (const auto& count : m.info.op_counts) {
        const std::string& type = count.first;
        CAPTURE(type);
        if (type != "feed" && type != "fetch") CHECK(is_supported<runtime::op_table>(type));
    }
    for (auto& t : needs) CHECK(m.info.op_counts.count(t) == 1);
    passes::run_passes(m.graph);
    runtime::program p(std::move(m.graph));
    REQUIRE(p.input_count() == 1);
    tensor x(p.input_var(0).type, feed_shape);
    if (!lod.empty()) x.set_lod(lod);
    p.set_input(0, x);
    p.prepare_plan();
    CHECK(p.memory().arena_bytes > 0);
}
}  // namespace

TEST_CASE("lac_gru_crf: every op is supported and its shapes plan with a LoD feed") {
    check_plans("lac_gru_crf", {7, 1}, {{0, 3, 3, 7}}, {"gru", "crf_decoding", "lookup_table"});
}

TEST_CASE("tsm_conv3d: every op is supported and its shapes plan") {
    check_plans("tsm_conv3d", {1, 7, 15, 224, 224}, {}, {"conv3d"});
}

}  // namespace models_topology_only_test
