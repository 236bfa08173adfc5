// litegraph ocr: pictures in, text out (litegraph/ocr.hpp: PaddleOCR's text
// system on litegraph sessions).
#pragma once

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "font.hpp"
#include "images.hpp"
#include "litegraph/kernels/simd.hpp"
#include "litegraph/ocr.hpp"
#include "options.hpp"

namespace litegraph::cli {

/// `lines` drawn on `img`: each box (green, or orange when the line was
/// turned by 180 degrees) and its text above it (below when there is no room)
/// on a light band, with `font` or, without one, the bitmap font.
inline vision::image draw_ocr(vision::image img, const std::vector<ocr::line>& lines,
                              const truetype_font* font) {
    int thick = std::max(1, std::min(img.width, img.height) / 400);
    for (const auto& l : lines) {
        std::array<std::uint8_t, 3> colour = l.angle == 180
                                                 ? std::array<std::uint8_t, 3>{235, 120, 0}
                                                 : std::array<std::uint8_t, 3>{30, 170, 40};
        vision::draw_polygon(img, l.box, colour, thick + 1);
    }
    for (const auto& l : lines) {
        if (l.text.empty()) continue;
        double x0 = 1e9, y0 = 1e9, y1 = -1e9;
        for (const auto& p : l.box)
            x0 = std::min(x0, p[0]), y0 = std::min(y0, p[1]), y1 = std::max(y1, p[1]);
        float size = float(std::clamp(0.45 * (y1 - y0), 10.0, 36.0));
        int band = int(size * 1.2f) + 2;
        int top = int(y0) - band - thick;
        if (top < 0) top = int(y1) + thick + 1;
        int x = std::max(0, int(x0));
        int w = font ? font->width(l.text, size) + 4 : int(l.text.size()) * 6 + 4;
        for (int yy = top; yy < top + band; ++yy)
            for (int xx = x; xx < x + w; ++xx)
                if (xx >= 0 && yy >= 0 && xx < img.width && yy < img.height)
                    for (int c = 0; c < 3; ++c) img.at(xx, yy, c) = 0.25f * img.at(xx, yy, c) + 191;
        if (font)
            font->draw(img, x + 2, top + 1, l.text, size, {0, 40, 150});
        else
            draw_text(img, x + 2, top + 1, l.text, {0, 40, 150}, 1);
    }
    return img;
}

/// The recognizer's inference.yml as JSON (null when it has none).
inline nlohmann::json rec_config_of(const std::filesystem::path& rec) {
    auto dir = std::filesystem::is_directory(rec) ? rec : rec.parent_path();
    if (!std::filesystem::exists(dir / "inference.yml")) return nullptr;
    try {
        return yaml_to_json(YAML::LoadFile((dir / "inference.yml").string()));
    } catch (const YAML::Exception& e) {
        throw io_error("cannot read " + (dir / "inference.yml").string() + ": " + e.what());
    }
}

inline int cmd_ocr(const std::vector<std::string>& argv) {
    CLI::App app{
        "Reads the text in pictures (PNG or JPEG) as PaddleOCR's text system does:\n"
        "the detector (DB) finds the lines, each is cut out by a perspective warp,\n"
        "the direction classifier (--cls) turns upside-down ones, the recognizer\n"
        "(CTC) reads them.  Prints each line (box, score, angle, text) in reading\n"
        "order; lines whose score is below --drop-score are left out.  The\n"
        "dictionary: --dict, else the recognizer's inference.yml\n"
        "(PostProcess.character_dict), else the one *dict*.txt or ppocr_keys*.txt\n"
        "beside it.  A picture without text gives no lines (exit 0).",
        "litegraph ocr"};
    setup_command(app);
    std::vector<std::string> images;
    app.add_option("IMAGE", images, "pictures to read (PNG or JPEG)")->required()->type_name("");
    ocr::options o;
    std::string det, rec, cls, dict, draw, font_file, space = "auto";
    app.add_option("--det", det, "the text detector's folder (PP-OCR DB, e.g. ppocr_v3_det)")
        ->type_name("DIR")
        ->required();
    app.add_option("--rec", rec, "the text recognizer's folder (CTC, e.g. a PP-OCR rec model)")
        ->type_name("DIR")
        ->required();
    app.add_option("--cls", cls,
                   "the direction classifier's folder (0 / 180 degrees); without\n"
                   "it no line is turned")
        ->type_name("DIR");
    app.add_option("--dict", dict, "the recognizer's dictionary: one character a line")
        ->type_name("FILE");
    app.add_option("--use-space-char", space,
                   "on: a space after the dictionary's characters; auto\n"
                   "(default): as the config says, else as the model's\n"
                   "class count needs")
        ->type_name("auto|on|off")
        ->check(CLI::IsMember({"auto", "on", "off"}));
    bool json = false;
    add_json(app, json,
             "{\"images\": [{\"file\", \"lines\": [{\"box\", \"text\", \"score\",\n"
             "\"angle\", \"box_score\", \"angle_score\"}]}], \"latency_ms\": {\"det\",\n"
             "\"cls\", \"rec\", \"total\"}, \"simd\", \"threads\"}");
    app.add_option("--draw", draw,
                   "write the picture with the boxes and their text; with\n"
                   "several pictures a folder, one <name>.png each")
        ->type_name("OUT.png");
    app.add_option("--font", font_file,
                   "the TrueType font of --draw (default $LITEGRAPH_FONT, else\n"
                   "DejaVu Sans of fonts-dejavu-core)")
        ->type_name("FILE");
    auto unit = [](double x) { return x >= 0 && x <= 1; };
    app.add_option("--drop-score", o.drop_score,
                   "leave out lines read with a lower score (default 0.5)")
        ->type_name("X")
        ->check(number_check(unit, "a number in [0, 1]"));
    app.add_option("--cls-thresh", o.cls_thresh,
                   "turn a line when the classifier says 180 with more\n"
                   "than this probability (default 0.9)")
        ->type_name("X")
        ->check(number_check(unit, "a number in [0, 1]"));
    app.add_option("--limit-side", o.limit_side,
                   "the detector's input: longer side at most N pixels\n(default 960)")
        ->type_name("N")
        ->check(CLI::Range(32, 4096));
    app.add_option("--thresh", o.db.thresh, "the detector's map threshold (default 0.3)")
        ->type_name("X")
        ->check(number_check(unit, "a number in [0, 1]"));
    app.add_option("--box-thresh", o.db.box_thresh,
                   "a box's mean probability must reach X (default 0.6)")
        ->type_name("X")
        ->check(number_check(unit, "a number in [0, 1]"));
    app.add_option("--unclip", o.db.unclip_ratio,
                   "how much a box grows (default 2.0; PaddleOCR: 1.5)")
        ->type_name("X")
        ->check(number_check([](double x) { return x > 0 && x <= 10; }, "a number in (0, 10]"));
    app.add_option("--rec-batch", o.rec_batch, "lines the recognizer reads at once (default 6)")
        ->type_name("N")
        ->check(CLI::Range(1, 256));
    app.add_option("--rec-height", o.rec_height,
                   "the recognizer's input height (default: its config's,\n"
                   "else its declared one, else 48)")
        ->type_name("N")
        ->check(CLI::Range(8, 512));
    app.add_option("--rec-width", o.rec_width,
                   "the recognizer's least input width (default: its\n"
                   "config's, else 320)")
        ->type_name("N")
        ->check(CLI::Range(8, 4096));
    app.add_option("--rec-max-pad", o.rec_max_pad,
                   "a line joins a batch while the batch's width is at most\n"
                   "1 + X times its own (default 0.1; PaddleOCR batches 6 by\n"
                   "aspect ratio whatever the padding: a large X)")
        ->type_name("X")
        ->check(number_check([](double x) { return x >= 0 && x <= 1e6; }, "a number >= 0"));
    bool no_rec_check = false;
    app.add_flag("--no-rec-check", no_rec_check,
                 "the classifier alone turns lines (PaddleOCR); by default a\n"
                 "line it is unsure of (neither angle above --cls-thresh) is\n"
                 "read both ways and the better score kept");
    app.add_flag("--rec-fixed-width", o.rec_fixed_width,
                 "every line at the least width, wider ones squeezed into\n"
                 "it (PaddleOCR 2.0's form for its non-Chinese recognizers)");
    preparation_option prep;
    add_precision(app, prep);
    add_threads(app, o.session.threads);
    if (!parse(app, argv)) return 0;

    o.det_model = det, o.rec_model = rec, o.cls_model = cls, o.dict = dict;
    o.use_space_char = space == "auto" ? -1 : space == "on" ? 1 : 0;
    o.rec_checks_unsure = !no_rec_check;
    for (const auto& [what, dir] : {std::pair{"--det", det}, {"--rec", rec}, {"--cls", cls}})
        if (!dir.empty() && !std::filesystem::exists(dir))
            throw usage_error(std::string(what) + ": no model at " + dir);
    if (!dict.empty() && !std::filesystem::is_regular_file(dict))
        throw usage_error("--dict: no file " + dict);
    o.session.precision = prep.session().precision;
    o.rec_config = rec_config_of(rec);
    std::optional<truetype_font> font;
    if (!draw.empty()) {
        auto path = font_file.empty() ? default_font_path() : std::filesystem::path(font_file);
        font = truetype_font::load(path);
        if (!font && !font_file.empty()) throw usage_error("--font: cannot read " + font_file);
        if (!font)
            std::cerr << "litegraph ocr: no font at " << path.string()
                      << " (install fonts-dejavu-core or give --font): the text is drawn in "
                         "the ASCII bitmap font\n";
        if (images.size() > 1) std::filesystem::create_directories(draw);
    }

    ocr::pipeline p(o);
    nlohmann::json out_images = nlohmann::json::array();
    ocr::timings total;
    for (const auto& file : images) {
        auto img = decode_image(file);
        auto lines = p.read(img);
        const auto& t = p.last_timings();
        total.det += t.det, total.cls += t.cls, total.rec += t.rec, total.total += t.total;
        if (json) {
            nlohmann::json js = nlohmann::json::array();
            for (const auto& l : lines) {
                nlohmann::json box = nlohmann::json::array();
                for (const auto& q : l.box) box.push_back({q[0], q[1]});
                js.push_back({{"box", box},
                              {"text", l.text},
                              {"score", l.score},
                              {"angle", l.angle},
                              {"box_score", l.box_score},
                              {"angle_score", l.angle_score}});
            }
            out_images.push_back({{"file", file}, {"lines", js}});
        } else {
            std::printf("%s: %zu line%s (det %.1f ms, cls %.1f ms, rec %.1f ms)\n", file.c_str(),
                        lines.size(), lines.size() == 1 ? "" : "s", t.det, t.cls, t.rec);
            for (const auto& l : lines) {
                std::printf("  [%g,%g %g,%g %g,%g %g,%g] %.3f %3d  %s\n", l.box[0][0], l.box[0][1],
                            l.box[1][0], l.box[1][1], l.box[2][0], l.box[2][1], l.box[3][0],
                            l.box[3][1], l.score, l.angle, l.text.c_str());
            }
        }
        if (!draw.empty()) {
            auto target = images.size() > 1
                              ? std::filesystem::path(draw) /
                                    (std::filesystem::path(file).stem().string() + ".png")
                              : std::filesystem::path(draw);
            write_png(target, draw_ocr(img, lines, font ? &*font : nullptr));
        }
    }
    if (json) {
        nlohmann::json j{
            {"images", out_images},
            {"latency_ms",
             {{"det", total.det}, {"cls", total.cls}, {"rec", total.rec}, {"total", total.total}}},
            {"simd", kernels::simd::active_name()},
            {"threads", o.session.threads}};
        std::cout << j.dump(2) << "\n";
    }
    return 0;
}

}  // namespace litegraph::cli
