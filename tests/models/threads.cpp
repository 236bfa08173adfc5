// Threads (core/parallel.hpp, session_options::threads): real models give
// bit-identical outputs on 1, 2 and 3 threads (convs split over images and
// output channels, fully connected layers over columns or rows; the OCR
// classifiers' batch of 2 runs split over images, runtime/image_split.hpp), and one
// loaded model run by 4 threads at once, one program each, gives the
// one-thread outputs every time.
#include <atomic>
#include <cstring>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_threads_test {

namespace {

struct case_t {
    std::string model;
    std::vector<std::pair<std::string, std::string>> inputs;  // feed name -> file in reference/
};

const case_t cases[] = {
    {"ppocr_mobile_v2.0_cls", {{"x", "input_n2.npy"}}},
    {"ppocr_mobile_v2.0_cls_slim_quant", {}},
    {"ppocr_v3_det", {{"x", "input_x.npy"}}},
    {"lenet_mnist", {{"x", "input_x.npy"}}},
    {"mlp_mnist_fluid2018", {{"img", "input_img.npy"}}},
    {"mlp_mnist_handwriting", {{"image", "input_image.npy"}}},
    {"dqn_atari_conv", {{"state", "input_state.npy"}}},
    {"word2vec_ngram",
     {{"firstw", "input_firstw.npy"},
      {"secondw", "input_secondw.npy"},
      {"thirdw", "input_thirdw.npy"},
      {"fourthw", "input_fourthw.npy"}}},
};

std::map<std::string, tensor> inputs_of(const case_t& c, const std::filesystem::path& dir) {
    std::map<std::string, tensor> in;
    for (auto& [feed, file] : c.inputs) in.emplace(feed, load_npy(dir / "reference" / file));
    if (c.inputs.empty())  // the classifier's input serves its quantized twin
        in.emplace("x", load_npy(dir.parent_path() / "ppocr_mobile_v2.0_cls" / "reference" /
                                 "input_n2.npy"));
    return in;
}

bool same_bits(const tensor& a, const tensor& b) {
    return a.type() == b.type() && a.shape() == b.shape() && a.bytes() == b.bytes() &&
           std::memcmp(a.data(), b.data(), static_cast<std::size_t>(a.bytes())) == 0;
}

bool same_bits(const std::map<std::string, tensor>& a, const std::map<std::string, tensor>& b) {
    if (a.size() != b.size()) return false;
    for (auto& [name, t] : a)
        if (!b.count(name) || !same_bits(t, b.at(name))) return false;
    return true;
}

}  // namespace

TEST_CASE("real models give bit-identical outputs on 1, 2 and 3 threads") {
    for (const auto& c : cases) {
        auto dir = test::shared_model(c.model);
        if (dir.empty()) continue;
        INFO("model " << c.model);
        const auto in = inputs_of(c, dir);
        const auto loaded = paddle::load(dir);
        session one(loaded, {.threads = 1});
        REQUIRE(one.program().threads() == 1);
        const auto want = one.run(in);
        // The quantized classifier's ops keep images apart: its batch of 2
        // runs as parts (the first run checks them against the whole batch).
        // The float one's do too, but one image alone takes other kernels
        // than two (1-ulp differences): the check keeps its batch of 2 whole.
        const bool splits = c.model == "ppocr_mobile_v2.0_cls_slim_quant";
        for (unsigned t : {2u, 3u}) {
            CAPTURE(t);
            session s(loaded, {.threads = t});
            CHECK(s.program().threads() == t);
            CHECK(same_bits(s.run(in), want));
            CHECK(s.program().ran_split() == splits);
            CHECK(same_bits(s.run(in), want));  // and again, on the same pool
            CHECK(s.program().ran_split() == splits);
        }
    }
}

TEST_CASE("the classifiers' batch of 8 runs split over images, with one thread's outputs") {
    for (const std::string model : {"ppocr_mobile_v2.0_cls", "ppocr_mobile_v2.0_cls_slim_quant"}) {
        auto dir = test::shared_model(model);
        if (dir.empty()) continue;
        INFO("model " << model);
        // Eight images: the reference pair four times over.
        const auto pair =
            load_npy(test::shared_model("ppocr_mobile_v2.0_cls") / "reference" / "input_n2.npy");
        auto shape = pair.shape();
        shape[0] = 8;
        tensor x(pair.type(), shape);
        for (int k = 0; k < 4; ++k)
            std::memcpy(x.data() + k * pair.bytes(), pair.data(),
                        static_cast<std::size_t>(pair.bytes()));
        const std::map<std::string, tensor> in{{"x", x}};
        const auto loaded = paddle::load(dir);
        const auto want = session(loaded, {.threads = 1}).run(in);
        for (unsigned t : {2u, 3u}) {  // parts of 4 and 4; 3, 3 and 2
            CAPTURE(t);
            session s(loaded, {.threads = t});
            for (int r = 0; r < 2; ++r) {
                CHECK(same_bits(s.run(in), want));
                CHECK(s.program().ran_split());
            }
        }
    }
}

TEST_CASE("one loaded model run by 4 threads at once gives the same outputs every time") {
    const case_t& c = cases[0];
    auto dir = test::shared_model(c.model);
    if (dir.empty()) return;
    const auto in = inputs_of(c, dir);
    const auto loaded = paddle::load(dir);
    const auto want = session(loaded, {.threads = 1}).run(in);
    // One program per thread, each built from the one loaded model; two of
    // them split their ops over pools of their own while the others run.
    std::vector<std::unique_ptr<session>> sessions;
    for (unsigned i = 0; i < 4; ++i)
        sessions.push_back(
            std::make_unique<session>(loaded, session_options{.threads = 1 + i % 2}));
    std::atomic<int> mismatches{0}, runs{0};
    std::vector<std::thread> threads;
    for (auto& s : sessions)
        threads.emplace_back([&, sp = s.get()] {
            for (int r = 0; r < 4; ++r) {
                if (!same_bits(sp->run(in), want)) ++mismatches;
                ++runs;
            }
        });
    for (auto& t : threads) t.join();
    CHECK(runs == 16);
    CHECK(mismatches == 0);
}

}  // namespace models_threads_test
