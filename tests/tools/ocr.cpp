// litegraph ocr as a user meets it: text320.png read with --json and drawn
// with --draw (a picture of the input's size, changed where the boxes are),
// several pictures at once, a blank picture (no lines, exit 0), and the clear
// errors: a missing option or model, a dictionary that does not fit the
// recognizer, a picture that is not one.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "scratch.hpp"
#include "support.hpp"

#include "stb_image_impl.hpp"

using namespace litegraph;
namespace fs = std::filesystem;

namespace {

using test::quoted;
using test::scratch;

struct models {
    fs::path det, rec, cls;
    bool ok() const { return !det.empty() && !rec.empty() && !cls.empty(); }
    std::string args() const {
        return "--det " + quoted(det) + " --rec " + quoted(rec) + " --cls " + quoted(cls);
    }
};

models shared() {
    return {test::shared_model("ppocr_v3_det"), test::shared_model("french_mobile_v2.0_rec"),
            test::shared_model("ppocr_mobile_v2.0_cls")};
}

std::vector<std::string> reference_texts(const fs::path& rec) {
    std::ifstream in(rec / "reference" / "texts.txt");
    std::vector<std::string> t;
    for (std::string l; std::getline(in, l);) t.push_back(l);
    return t;
}

}  // namespace

TEST_CASE("ocr --help, and the options it needs") {
    auto r = test::run_cli("ocr --help");
    CHECK(r.code == 0);
    CHECK(r.out.find("usage: litegraph ocr") != std::string::npos);
    CHECK(r.out.find("--drop-score X") != std::string::npos);
    CHECK(test::run_cli("--help").out.find("ocr IMAGE...") != std::string::npos);
    auto none = test::run_cli("ocr");
    CHECK(none.code == 2);
    auto m = shared();
    if (!m.ok()) return;
    auto img = m.det / "reference" / "text320.png";
    auto no_rec = test::run_cli("ocr " + quoted(img) + " --det " + quoted(m.det));
    CHECK(no_rec.code == 2);
    CHECK(no_rec.out.find("--rec") != std::string::npos);
    auto missing =
        test::run_cli("ocr " + quoted(img) + " --det " + quoted(m.det) + " --rec /nonexistent/rec");
    CHECK(missing.code == 2);
    CHECK(missing.out.find("/nonexistent/rec") != std::string::npos);
    CHECK(test::run_cli("ocr " + quoted(img) + " " + m.args() + " --drop-score 3").code == 2);
}

TEST_CASE("ocr: text320.png as JSON and drawn, several pictures, a blank one") {
    auto m = shared();
    if (!m.ok()) return;
    auto dir = scratch("ocr");
    auto img = m.det / "reference" / "text320.png";
    auto texts = reference_texts(m.rec);
    auto r = test::run_cli("ocr " + quoted(img) + " " + m.args() + " --json --draw " +
                           quoted(dir / "out.png") + " --threads 1");
    REQUIRE_MESSAGE(r.code == 0, r.out);
    auto j = nlohmann::json::parse(r.out);
    REQUIRE(j["images"].size() == 1);
    const auto& lines = j["images"][0]["lines"];
    REQUIRE(lines.size() == texts.size());
    CHECK(lines[0]["text"] == texts[0]);
    CHECK(lines[1]["text"] == texts[1]);
    for (const auto& l : lines) {
        CHECK(l["box"].size() == 4);
        CHECK(l["angle"] == 0);
        CHECK(l["score"].get<double>() >= 0.5);
    }
    for (const char* k : {"det", "cls", "rec", "total"})
        CHECK(j["latency_ms"][k].get<double>() >= 0);
    CHECK(j["latency_ms"]["total"].get<double>() > 0);

    // The drawing: the input's size, changed inside the first line's box band.
    auto in = test::load_picture(img);
    auto out = test::load_picture(dir / "out.png");
    REQUIRE(out.width == in.width);
    REQUIRE(out.height == in.height);
    int changed = 0;
    for (std::size_t i = 0; i < in.data.size(); ++i) changed += in.data[i] != out.data[i];
    CHECK(changed > 500);

    // A blank picture: no lines, exit 0; with it, text320 in one call.
    std::vector<unsigned char> blank(160 * 100 * 3, 240);
    REQUIRE(stbi_write_png((dir / "blank.png").string().c_str(), 160, 100, 3, blank.data(),
                           160 * 3) != 0);
    auto b = test::run_cli("ocr " + quoted(dir / "blank.png") + " " + quoted(img) + " " + m.args() +
                           " --json --draw " + quoted(dir / "drawn"));
    REQUIRE_MESSAGE(b.code == 0, b.out);
    auto jb = nlohmann::json::parse(b.out);
    REQUIRE(jb["images"].size() == 2);
    CHECK(jb["images"][0]["lines"].empty());
    CHECK(jb["images"][1]["lines"].size() == texts.size());
    CHECK(fs::exists(dir / "drawn" / "blank.png"));
    CHECK(fs::exists(dir / "drawn" / "text320.png"));

    // The plain form prints each line's text.
    auto plain = test::run_cli("ocr " + quoted(img) + " " + m.args());
    REQUIRE(plain.code == 0);
    CHECK(plain.out.find(texts[0]) != std::string::npos);
    CHECK(plain.out.find("3 lines") != std::string::npos);
}

TEST_CASE("ocr: a dictionary that does not fit, a picture that is not one") {
    auto m = shared();
    if (!m.ok()) return;
    auto dir = scratch("ocr_errors");
    auto img = m.det / "reference" / "text320.png";
    {
        std::ofstream(dir / "small_dict.txt") << "a\nb\n";
        std::ofstream(dir / "broken.png") << "not a picture";
    }
    auto d = test::run_cli("ocr " + quoted(img) + " " + m.args() + " --dict " +
                           quoted(dir / "small_dict.txt"));
    CHECK(d.code == 2);
    CHECK(d.out.find("137") != std::string::npos);
    CHECK(d.out.find("small_dict.txt") != std::string::npos);
    auto p = test::run_cli("ocr " + quoted(dir / "broken.png") + " " + m.args());
    CHECK(p.code == 1);
    CHECK(p.out.find("broken.png") != std::string::npos);
    auto gone = test::run_cli("ocr " + quoted(dir / "absent.png") + " " + m.args());
    CHECK(gone.code == 1);
    CHECK(gone.out.find("absent.png") != std::string::npos);
}
