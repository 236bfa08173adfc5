// litegraph::session, the one entry point: a real model run by name against its
// ONNX Runtime reference, the same as the program built by hand with the
// passes, its options (unfused, fp32 of a quantized model, limits), and its
// errors for inputs that are unknown or missing.
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_session_test {

TEST_CASE(
    "session: the PP-OCR classifier by name equals its reference and the hand-built program") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    const auto x = load_npy(dir / "reference" / "input_n2.npy");
    const auto want = load_npy(dir / "reference" / "output_n2.npy");

    session s(dir);
    REQUIRE(s.input_names() == std::vector<std::string>{"x"});
    REQUIRE(s.output_names().size() == 1);
    CHECK(s.info().format == "combined");
    CHECK(s.passes_report().count("fold_batch_norm") > 0);  // it ran the passes
    auto out = s.run({{"x", x}});
    REQUIRE(out.size() == 1);
    const auto& y = out.at(s.output_names()[0]);
    REQUIRE(y.shape() == want.shape());
    CHECK(test::max_abs_diff(y.span<float>(), want.span<float>()) <= 1e-5);

    // The same as loading, running the passes and building the program by hand.
    auto m = paddle::load(dir);
    passes::run_passes(m.graph);
    runtime::program p(std::move(m.graph));
    p.set_input("x", x);
    p.run();
    CHECK(test::max_abs_diff(y.span<float>(), p.output(0).span<float>()) == 0);

    // Run again with one sample: the session re-infers its shapes.
    auto one = s.run({{"x", load_npy(dir / "reference" / "input_n1.npy")}});
    CHECK(one.at(s.output_names()[0]).shape()[0] == 1);

    // Unfused: no pass ran, the same answer to float rounding.
    session u(dir, {.fuse = false});
    CHECK(u.passes_report().counts.empty());
    auto yu = u.run({{"x", x}});
    CHECK(test::max_abs_diff(yu.at(u.output_names()[0]).span<float>(), want.span<float>()) <= 1e-5);

    // Errors name the problem: an unknown input, a missing one, an arena cap.
    CHECK_THROWS_WITH_AS(s.run({{"y", x}}), doctest::Contains("no input named 'y' (inputs: x)"),
                         usage_error);
    CHECK_THROWS_WITH_AS(s.run({}), doctest::Contains("no tensor for input(s) x"), usage_error);
    session_options capped;
    capped.limits.max_arena_bytes = 1024;
    session c(dir, capped);
    CHECK_THROWS_AS(c.run({{"x", x}}), error);
}

TEST_CASE("session: pipeline and segments options; prepare() is the session's first half") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls");
    if (dir.empty()) return;
    const auto x = load_npy(dir / "reference" / "input_n1.npy");
    const auto want = session(dir).run({{"x", x}}).begin()->second;

    // A pass skipped by name does not run; the others do; the answer holds.
    session_options skip;
    skip.pipeline.skip = {"fuse_conv_activation"};
    session s(dir, skip);
    CHECK(s.passes_report().count("fold_batch_norm") > 0);
    bool activation_pass_ran = false;
    for (auto& [name, n] : s.passes_report().counts)
        activation_pass_ran |= name == "fuse_conv_activation";
    CHECK_FALSE(activation_pass_ran);
    auto y = s.run({{"x", x}}).begin()->second;
    CHECK(test::max_abs_diff(y.span<float>(), want.span<float>()) <= 1e-5);

    // prepare() on a loaded graph does what the session did: the same passes
    // with the same counts, the same ops.
    auto m = paddle::load(dir);
    auto prepared = prepare(m.graph, skip);
    CHECK(prepared.passes.counts == s.passes_report().counts);
    REQUIRE(m.graph.ops.size() == s.program().graph().ops.size());
    for (std::size_t i = 0; i < m.graph.ops.size(); ++i)
        CHECK(m.graph.ops[i].type == s.program().graph().ops[i].type);

    // Stopping after the first pass runs that pass only.
    session_options first;
    first.pipeline.stop_after = "remove_identity";
    CHECK(session(dir, first).passes_report().counts.size() == 1);

    // Two segments, a small fast one first: the plan uses both, the answer is
    // bit for bit the one-arena answer (placement does not change the math).
    session_options two;
    two.segments = {planner::segment{.name = "fast", .capacity = 16 * 1024},
                    planner::segment{.name = "slow"}};
    session t(dir, two);
    auto yt = t.run({{"x", x}}).begin()->second;
    REQUIRE(t.program().segments().size() == 2);
    REQUIRE(t.program().plan().used.size() == 2);
    CHECK(t.program().plan().used[0] > 0);
    CHECK(t.program().plan().used[0] <= 16 * 1024);
    CHECK(t.program().plan().used[1] > 0);
    CHECK(test::max_abs_diff(yt.span<float>(), want.span<float>()) == 0);

    // A segment too small for the model is the program's clear error.
    session_options tiny;
    tiny.segments = {planner::segment{.name = "tiny", .capacity = 1024}};
    session u(dir, tiny);
    CHECK_THROWS_WITH_AS(u.run({{"x", x}}), doctest::Contains("do not fit the memory segments"),
                         usage_error);
}

TEST_CASE("session: a quantized model runs int8 by default and in float with precision fp32") {
    auto dir = test::shared_model("ppocr_mobile_v2.0_cls_slim_quant");
    if (dir.empty()) return;
    auto ref = test::shared_model("ppocr_mobile_v2.0_cls");
    if (ref.empty()) return;
    const auto x = load_npy(ref / "reference" / "input_n2.npy");
    session q(dir);
    session f(dir, {.precision = precision_mode::fp32});
    CHECK(q.passes_report().count("quantize_int8") > 0);
    CHECK(f.passes_report().count("quantize_int8") == 0);
    auto yq = q.run({{"x", x}}).at(q.output_names()[0]);
    auto yf = f.run({{"x", x}}).at(f.output_names()[0]);
    REQUIRE(yq.shape() == yf.shape());
    // The int8 kernels and the float simulation of the same quantized model
    // agree closely (the same scales), but not bit for bit.
    const double d = test::max_abs_diff(yq.span<float>(), yf.span<float>());
    CHECK(d <= 0.05);
    CHECK(d > 0);
}

}  // namespace models_session_test
