// text_lines: finds the lines of text in an image with the PP-OCRv3 detector,
// tells for each whether it is upside down with ppocr_mobile_v2.0_cls, reads
// them with a recognizer when --rec names one, and draws them: the library's
// OCR pipeline (litegraph/ocr.hpp, the method) from a small program.
//
// usage: text_lines IMAGE [-o OUT.png] [--json] [--det DIR] [--cls DIR] [--rec DIR]
//                   [--limit-side N] [--thresh X] [--box-thresh X] [--unclip X]
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "litegraph/ocr.hpp"
#include "litegraph/vision/draw.hpp"

#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#endif
#define STB_IMAGE_IMPLEMENTATION
#define STBI_ONLY_PNG
#define STBI_ONLY_JPEG
#include <stb/stb_image.h>
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb/stb_image_write.h>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

#ifndef LITEGRAPH_SHARED_MODELS
#define LITEGRAPH_SHARED_MODELS "../shared/models"
#endif

namespace {

constexpr const char* usage_text =
    "usage: text_lines IMAGE [-o OUT.png] [--json] [--det DIR] [--cls DIR] [--rec DIR]\n"
    "                  [--limit-side N] [--thresh X] [--box-thresh X] [--unclip X]\n"
    "Finds the lines of text in IMAGE (PNG or JPEG) with the PP-OCRv3 detector and DB\n"
    "post-processing, classifies each line's orientation (0 or 180 degrees) with\n"
    "ppocr_mobile_v2.0_cls and prints them in reading order; with --rec, what they say.\n"
    "  -o OUT.png        draw the lines' boxes on the image (green: upright, red: turned)\n"
    "  --json            print {\"lines\": [{\"box\", \"score\", \"angle\", \"angle_score\"}]}\n"
    "                    (with --rec also \"text\" and \"text_score\")\n"
    "                    (boxes: four corners in the image's pixels, clockwise from\n"
    "                    the top-left)\n"
    "  --det DIR         the detector (default " LITEGRAPH_SHARED_MODELS
    "/ppocr_v3_det)\n"
    "  --cls DIR         the orientation classifier (default " LITEGRAPH_SHARED_MODELS
    "/ppocr_mobile_v2.0_cls)\n"
    "  --rec DIR         a text recognizer (CTC): read the lines (`litegraph ocr` does the same\n"
    "                    with every option)\n"
    "  --limit-side N    the detector's input: longer side at most N pixels (default 960)\n"
    "  --thresh X        probability threshold of the map (default 0.3)\n"
    "  --box-thresh X    a line's mean probability must reach X (default 0.6)\n"
    "  --unclip X        how much a line's box grows (default 2.0)\n";

double number(const std::string& opt, const std::string& v, double lo, double hi) {
    std::size_t used = 0;
    double x = 0;
    try {
        x = std::stod(v, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != v.size() || !(x >= lo && x <= hi))
        throw std::invalid_argument(opt + " takes a number from " + std::to_string(lo) + " to " +
                                    std::to_string(hi) + ", got '" + v + "'");
    return x;
}

}  // namespace

int main(int argc, char** argv) {
    std::string input, out_png;
    bool json = false;
    litegraph::ocr::options o;
    o.det_model = LITEGRAPH_SHARED_MODELS "/ppocr_v3_det";
    o.cls_model = LITEGRAPH_SHARED_MODELS "/ppocr_mobile_v2.0_cls";
    try {
        for (int i = 1; i < argc; ++i) {
            std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            if (a == "-h" || a == "--help") {
                std::cout << usage_text;
                return 0;
            } else if (a == "-o") {
                out_png = value();
            } else if (a == "--json") {
                json = true;
            } else if (a == "--det") {
                o.det_model = value();
            } else if (a == "--cls") {
                o.cls_model = value();
            } else if (a == "--rec") {
                o.rec_model = value();
            } else if (a == "--limit-side") {
                o.limit_side = static_cast<int>(number(a, value(), 32, 8192));
            } else if (a == "--thresh") {
                o.db.thresh = number(a, value(), 0, 1);
            } else if (a == "--box-thresh") {
                o.db.box_thresh = number(a, value(), 0, 1);
            } else if (a == "--unclip") {
                o.db.unclip_ratio = number(a, value(), 0, 10);
            } else if (!a.empty() && a[0] == '-') {
                throw std::invalid_argument("unknown option " + a);
            } else if (input.empty()) {
                input = a;
            } else {
                throw std::invalid_argument("one IMAGE only (got '" + input + "' and '" + a + "')");
            }
        }
        if (input.empty()) throw std::invalid_argument("no IMAGE given");
    } catch (const std::invalid_argument& e) {
        std::cerr << "text_lines: " << e.what() << "\n" << usage_text;
        return 2;
    }

    try {
        int w = 0, h = 0, channels = 0;
        std::unique_ptr<unsigned char, void (*)(void*)> pixels(
            stbi_load(input.c_str(), &w, &h, &channels, 4), stbi_image_free);
        if (!pixels) {
            std::cerr << "text_lines: cannot read image " << input << ": " << stbi_failure_reason()
                      << "\n";
            return 1;
        }
        auto img = litegraph::vision::image::from_pixels(pixels.get(), w, h, 4);
        litegraph::ocr::pipeline finder(o);
        auto lines = finder.read(img);

        nlohmann::json doc = {{"lines", nlohmann::json::array()}};
        for (auto& l : lines) {
            nlohmann::json box = nlohmann::json::array();
            for (auto& p : l.box) box.push_back({p[0], p[1]});
            nlohmann::json j = {{"box", box},
                                {"score", l.box_score},
                                {"angle", l.angle},
                                {"angle_score", l.angle_score}};
            if (finder.has_recognizer()) j["text"] = l.text, j["text_score"] = l.score;
            doc["lines"].push_back(j);
        }
        if (json) {
            std::cout << doc.dump(2) << "\n";
        } else {
            std::cout << lines.size() << " line(s)\n";
            for (auto& l : lines)
                std::printf(
                    "(%g,%g) (%g,%g) (%g,%g) (%g,%g)  score %.3f  angle %d (p %.3f)  %dx%d  %s\n",
                    l.box[0][0], l.box[0][1], l.box[1][0], l.box[1][1], l.box[2][0], l.box[2][1],
                    l.box[3][0], l.box[3][1], l.box_score, l.angle, l.angle_score, l.crop.width,
                    l.crop.height, l.text.c_str());
        }
        if (!out_png.empty()) {
            auto drawn = img;
            for (auto& l : lines)
                litegraph::vision::draw_polygon(drawn, l.box,
                                                l.angle == 0
                                                    ? std::array<std::uint8_t, 3>{0, 170, 40}
                                                    : std::array<std::uint8_t, 3>{220, 0, 0},
                                                std::max(2, std::min(w, h) / 200));
            std::vector<std::uint8_t> rgb(drawn.data.size());
            for (std::size_t i = 0; i < rgb.size(); ++i)
                rgb[i] = static_cast<std::uint8_t>(std::clamp(drawn.data[i], 0.0f, 255.0f));
            if (!stbi_write_png(out_png.c_str(), w, h, 3, rgb.data(), w * 3)) {
                std::cerr << "text_lines: cannot write " << out_png << "\n";
                return 1;
            }
            std::cerr << "text_lines: wrote " << out_png << "\n";
        }
        return 0;
    } catch (const std::exception& e) {
        std::cerr << "text_lines: " << e.what() << "\n";
        return 1;
    }
}
