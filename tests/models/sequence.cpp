// LoD models on their reference inputs (reference/input_words.npy with the
// offsets of reference/input_words.lod): textcnn_sequence_conv (lookup_table,
// sequence_conv, sequence_pool SQRT, sum) and paddlehub_rumor_prediction_lstm
// (lookup_table, LoD lstm, sequence_pool MAX, sum) match output_0.npy to 1e-4,
// unfused and fused; a LoD that does not fit the rows is named.
#include <fstream>
#include <sstream>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "litegraph/passes/pipeline.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_sequence_test {

namespace {
std::vector<std::int64_t> read_offsets(const std::filesystem::path& file) {
    std::ifstream in(file);
    REQUIRE(in.good());
    std::vector<std::int64_t> v;
    std::string tok;
    while (std::getline(in, tok, ',')) v.push_back(std::stoll(tok));
    return v;
}

void check_model(const std::string& name, double tolerance) {
    auto dir = test::shared_model(name);
    if (dir.empty()) return;
    const auto ref = dir / "reference";
    auto words = load_npy(ref / "input_words.npy");
    words.set_lod({read_offsets(ref / "input_words.lod")});
    auto expect = load_npy(ref / "output_0.npy");
    for (bool fuse : {false, true}) {
        auto m = paddle::load(dir);
        if (fuse) passes::run_passes(m.graph);
        runtime::program p(std::move(m.graph));
        p.set_input("words", words);
        p.run();
        const auto& out = p.output(0);
        REQUIRE(out.shape == expect.shape());
        const double diff = test::max_abs_diff(out.span<float>(), expect.span<float>());
        const std::string how = fuse ? " fused" : " unfused";
        MESSAGE(name << how << ": max |diff| = " << diff);
        CHECK(diff <= tolerance);
        CHECK(out.lod.empty());  // sequence_pool dropped the level
    }
}
}  // namespace

TEST_CASE("textcnn_sequence_conv matches its reference to 1e-4") {
    check_model("textcnn_sequence_conv", 1e-4);
}

TEST_CASE("paddlehub_rumor_prediction_lstm matches its reference to 1e-4; the rumour is class 0") {
    check_model("paddlehub_rumor_prediction_lstm", 1e-4);
    auto dir = test::shared_model("paddlehub_rumor_prediction_lstm");
    if (dir.empty()) return;
    runtime::program p(paddle::load(dir).graph);
    auto words = load_npy(dir / "reference" / "input_words.npy");
    words.set_lod({read_offsets(dir / "reference" / "input_words.lod")});
    p.set_input("words", words);
    p.run();
    auto probs = p.output(0).span<float>();
    CHECK(probs[0] > probs[1]);  // first sentence: rumour (class 0)
}

TEST_CASE("a LoD that does not fit the feed's rows is named") {
    auto dir = test::shared_model("textcnn_sequence_conv");
    if (dir.empty()) return;
    runtime::program p(paddle::load(dir).graph);
    auto words = load_npy(dir / "reference" / "input_words.npy");
    CHECK_THROWS_WITH_AS(p.set_input("words", words, {{0, 7, 20}}),
                         doctest::Contains("ends at 20 but the tensor has 19 rows"), shape_error);
    // No LoD at all: the first sequence op names what is missing.
    p.set_input("words", words);
    CHECK_THROWS_WITH_AS(p.run(), doctest::Contains("has no LoD"), shape_error);
}

}  // namespace models_sequence_test
