// OCR, picture in, text out (litegraph/ocr.hpp) on the shared PaddleOCR
// models: the recognizer against its independent reference and its text, the
// whole pipeline on text320.png upright and turned, and the pipeline's errors
// and empty results (a blank picture, an empty one, a missing model, a
// dictionary that does not fit).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "litegraph/core/npy.hpp"
#include "litegraph/paddle.hpp"
#include "stb_image_impl.hpp"
#include "support.hpp"

using namespace litegraph;

namespace models_ocr_test {

std::vector<std::string> reference_texts(const std::filesystem::path& rec) {
    std::ifstream in(rec / "reference" / "texts.txt");
    std::vector<std::string> t;
    for (std::string l; std::getline(in, l);) t.push_back(l);
    return t;
}

struct models {
    std::filesystem::path det, rec, cls;
    bool ok() const { return !det.empty() && !rec.empty() && !cls.empty(); }
};

models shared() {
    return {test::shared_model("ppocr_v3_det"), test::shared_model("french_mobile_v2.0_rec"),
            test::shared_model("ppocr_mobile_v2.0_cls")};
}

TEST_CASE("ocr: the recognizer reads its reference lines exactly, as its reference says") {
    auto dir = test::shared_model("french_mobile_v2.0_rec");
    if (dir.empty()) return;
    auto x = load_npy(dir / "reference" / "input_x.npy");
    auto want = load_npy(dir / "reference" / "output_0.npy");
    session s(dir);
    auto y = s.run({{"x", x}}).at(s.output_names()[0]);
    REQUIRE(y.shape() == want.shape());
    CHECK(test::max_abs_diff(y.span<float>(), want.span<float>()) <= 1e-4);
    std::ifstream f(dir / "french_dict.txt");
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    auto d = vision::ocr::dictionary::from_text(text, false);
    REQUIRE(d.classes() == 137);
    auto texts = reference_texts(dir);
    REQUIRE(texts.size() == 3);
    const auto T = y.shape()[1], C = y.shape()[2];
    for (std::int64_t n = 0; n < 3; ++n) {
        auto got = vision::ocr::ctc_greedy(y.span<float>().data() + n * T * C, T, C, &d);
        auto ref = vision::ocr::ctc_greedy(want.span<float>().data() + n * T * C, T, C, &d);
        CHECK(got.text == texts[std::size_t(n)]);
        CHECK(got.classes == ref.classes);
        CHECK(got.score > 0.8);
    }
}

TEST_CASE("ocr pipeline: text320.png, picture in, text out; turned by 180 degrees the same") {
    auto m = shared();
    if (!m.ok()) return;
    auto img = test::load_picture(m.det / "reference" / "text320.png");
    auto texts = reference_texts(m.rec);
    ocr::pipeline p(m.det, m.rec, m.cls);
    CHECK(p.rec_height() == 32);  // the declared input height
    CHECK(p.rec_width() == 320);
    CHECK(p.dictionary().classes() == 137);
    auto lines = p.read(img);
    REQUIRE(lines.size() == texts.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
        CHECK(lines[i].text == texts[i]);
        CHECK(lines[i].score >= 0.5);
        CHECK(lines[i].angle == 0);
        if (i) CHECK(lines[i].box[0][1] > lines[i - 1].box[0][1]);  // reading order
    }
    CHECK(p.last_timings().det > 0);
    CHECK(p.last_timings().rec > 0);
    CHECK(p.last_timings().total >= p.last_timings().det + p.last_timings().rec);

    // Turned, the crops differ by a pixel here and there: the rarer `+` of
    // "DTCM + SRAM" may go, one edit; the other lines read exactly.
    auto turned = p.read(vision::rotate180(img));
    REQUIRE(turned.size() == texts.size());
    for (std::size_t i = 0; i < turned.size(); ++i) {
        CHECK(turned[i].angle == 180);
        // Reading order on the turned page: the last line comes first.
        const auto& want = texts[texts.size() - 1 - i];
        CHECK(vision::ocr::edit_distance(turned[i].text, want) <=
              (want.find('+') != std::string::npos ? 1u : 0u));
    }
    // Without the classifier nothing is turned, and upside-down text does not
    // read (dropped by its score, or garbled).
    ocr::pipeline no_cls(m.det, m.rec);
    for (const auto& l : no_cls.read(vision::rotate180(img))) {
        CHECK(l.angle == 0);
        bool same = false;
        for (const auto& t : texts) same = same || l.text == t;
        CHECK_FALSE(same);
    }
}

TEST_CASE("ocr pipeline: a picture without text gives no lines; bad input is a clear error") {
    auto m = shared();
    if (!m.ok()) return;
    ocr::pipeline p(m.det, m.rec, m.cls);
    vision::image blank(200, 90, 3);
    for (auto& v : blank.data) v = 235;
    CHECK(p.read(blank).empty());
    CHECK_THROWS_AS(p.read(vision::image{}), usage_error);

    CHECK_THROWS_AS(ocr::pipeline(m.det, "/nonexistent/rec"), io_error);
    auto dir = std::filesystem::temp_directory_path() / "litegraph_ocr_dict_test";
    std::filesystem::create_directories(dir);
    { std::ofstream(dir / "short_dict.txt") << "a\nb\nc\n"; }
    ocr::options o;
    o.det_model = m.det, o.rec_model = m.rec, o.dict = dir / "short_dict.txt";
    try {
        ocr::pipeline bad(o);
        FAIL("a 3-character dictionary for 137 classes was taken");
    } catch (const usage_error& e) {
        std::string msg = e.what();
        CHECK(msg.find("short_dict.txt") != std::string::npos);
        CHECK(msg.find(" 3 ") != std::string::npos);
        CHECK(msg.find("137") != std::string::npos);
    }
    o.dict.clear();
    o.drop_score = 2;
    CHECK_THROWS_AS(ocr::pipeline{o}, usage_error);
    std::filesystem::remove_all(dir);
}

}  // namespace models_ocr_test
