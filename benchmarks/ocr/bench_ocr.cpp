// OCR on pages: how well and how fast litegraph::ocr::pipeline reads them.
//
//   bench_ocr --det DIR --rec DIR [--cls DIR] [--truth FILE] [--rounds N]
//             [--threads N] [--precision int8|fp32] PAGE...
//
// Accuracy (with --truth: the pages' lines, one a line, in reading order, a
// blank line between pages): each line read is matched to the truth line
// nearest to it by edit distance (pairs taken nearest first, each line once);
// printed per page and in total: lines exactly right, the character error
// rate (the edit distances of the truth lines to their matches, or their
// whole length when unmatched, over the truth's characters; code points) and
// the extra lines (read, matched to no truth line).
// Speed: the pages read one after the other on 1 thread and on --threads
// (default every core), alternating between the two for --rounds rounds
// (default 7) after a warm-up; the median per page and per stage, and lines
// per second.  CPU and SIMD path printed beside the figures.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../../tools/litegraph/cmd_ocr.hpp"
#include "../machine.hpp"

using namespace litegraph;

namespace {

struct score {
    std::size_t truth_lines = 0, exact = 0, extra = 0, chars = 0, errors = 0;
};

score compare(const std::vector<std::string>& truth, const std::vector<ocr::line>& read) {
    struct pair {
        std::size_t d, t, r;
    };
    std::vector<pair> pairs;
    std::vector<std::vector<int>> tc, rc;
    for (const auto& t : truth) tc.push_back(cli::utf8_code_points(t));
    for (const auto& r : read) rc.push_back(cli::utf8_code_points(r.text));
    for (std::size_t t = 0; t < tc.size(); ++t)
        for (std::size_t r = 0; r < rc.size(); ++r)
            pairs.push_back({vision::ocr::edit_distance(tc[t], rc[r]), t, r});
    std::stable_sort(pairs.begin(), pairs.end(),
                     [](const pair& a, const pair& b) { return a.d < b.d; });
    std::vector<bool> t_used(tc.size()), r_used(rc.size());
    score s;
    s.truth_lines = tc.size();
    for (const auto& p : pairs) {
        if (t_used[p.t] || r_used[p.r] || p.d >= tc[p.t].size()) continue;
        t_used[p.t] = r_used[p.r] = true;
        s.errors += p.d;
        s.exact += p.d == 0;
    }
    for (std::size_t t = 0; t < tc.size(); ++t) {
        s.chars += tc[t].size();
        if (!t_used[t]) s.errors += tc[t].size();
    }
    for (std::size_t r = 0; r < rc.size(); ++r) s.extra += !r_used[r];
    return s;
}

std::vector<std::vector<std::string>> read_truth(const std::string& file) {
    std::ifstream in(file);
    if (!in) throw io_error("cannot read " + file);
    std::vector<std::vector<std::string>> pages(1);
    for (std::string l; std::getline(in, l);) {
        if (!l.empty() && l.back() == '\r') l.pop_back();
        if (l.empty())
            pages.emplace_back();
        else
            pages.back().push_back(l);
    }
    while (!pages.empty() && pages.back().empty()) pages.pop_back();
    return pages;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty()      ? 0
           : v.size() % 2 ? v[v.size() / 2]
                          : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "OCR on pages with litegraph::ocr::pipeline: accuracy against --truth (exact\n"
        "lines, character error rate, extra lines) and speed (ms per page and per\n"
        "stage, lines per second; 1 thread and --threads alternating, medians).",
        "bench_ocr"};
    cli::setup_command(app);
    std::vector<std::string> pages;
    std::string det, rec, cls, truth_file, precision = "int8";
    int rounds = 7;
    unsigned threads = 0;
    app.add_option("PAGE", pages, "pictures (PNG or JPEG)")->required()->type_name("");
    app.add_option("--det", det, "the text detector")->type_name("DIR")->required();
    app.add_option("--rec", rec, "the text recognizer")->type_name("DIR")->required();
    app.add_option("--cls", cls, "the direction classifier")->type_name("DIR");
    app.add_option("--truth", truth_file,
                   "the pages' lines in reading order, a blank line between\npages")
        ->type_name("FILE");
    app.add_option("--rounds", rounds, "timed rounds (default 7; 0: accuracy only)")
        ->type_name("N")
        ->check(CLI::Range(0, 1000));
    app.add_option("--threads", threads, "the many-thread count (default 0: every core)")
        ->type_name("N")
        ->check(CLI::Range(0u, 1024u));
    app.add_option("--precision", precision, "int8 (default) or fp32 for a quantized recognizer")
        ->type_name("int8|fp32")
        ->check(CLI::IsMember({"int8", "fp32"}));
    try {
        if (!cli::parse(app, {argv + 1, argv + argc})) return 0;
        std::vector<vision::image> images;
        for (const auto& p : pages) images.push_back(cli::decode_image(p));
        ocr::options o;
        o.det_model = det, o.rec_model = rec, o.cls_model = cls;
        o.rec_config = cli::rec_config_of(rec);
        o.session.precision = precision == "fp32" ? precision_mode::fp32 : precision_mode::int8;
        o.session.threads = 1;
        ocr::pipeline one(o);
        std::printf("CPU: %s; SIMD path: %s; recognizer input %d x %d+\n",
                    bench::cpu_name().c_str(), kernels::simd::active_name().c_str(),
                    one.rec_height(), one.rec_width());

        if (!truth_file.empty()) {
            auto truth = read_truth(truth_file);
            if (truth.size() != images.size())
                throw usage_error("--truth has " + std::to_string(truth.size()) + " pages, " +
                                  std::to_string(images.size()) + " given");
            score total;
            for (std::size_t i = 0; i < images.size(); ++i) {
                auto lines = one.read(images[i]);
                auto s = compare(truth[i], lines);
                std::printf("%s: %zu of %zu lines exact, CER %.2f%% (%zu / %zu), %zu extra\n",
                            pages[i].c_str(), s.exact, s.truth_lines,
                            100.0 * double(s.errors) / double(std::max<std::size_t>(1, s.chars)),
                            s.errors, s.chars, s.extra);
                for (const auto& l : lines)
                    std::printf("  %.3f %3d  %s\n", l.score, l.angle, l.text.c_str());
                total.truth_lines += s.truth_lines, total.exact += s.exact, total.extra += s.extra,
                    total.chars += s.chars, total.errors += s.errors;
            }
            std::printf(
                "total: %zu of %zu lines exact, CER %.2f%% (%zu / %zu), %zu extra\n", total.exact,
                total.truth_lines,
                100.0 * double(total.errors) / double(std::max<std::size_t>(1, total.chars)),
                total.errors, total.chars, total.extra);
        }
        if (rounds == 0) return 0;

        o.session.threads = threads;
        ocr::pipeline many(o);
        unsigned many_n = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
        struct series {
            std::vector<double> total, det, cls, rec;
            std::size_t lines = 0;
        } s1, sn;
        auto round = [&](ocr::pipeline& p, series& s, bool keep) {
            ocr::timings sum;
            std::size_t lines = 0;
            for (const auto& img : images) {
                lines += p.read(img).size();
                const auto& t = p.last_timings();
                sum.det += t.det, sum.cls += t.cls, sum.rec += t.rec, sum.total += t.total;
            }
            if (!keep) return;
            s.total.push_back(sum.total), s.det.push_back(sum.det), s.cls.push_back(sum.cls),
                s.rec.push_back(sum.rec);
            s.lines = lines;
        };
        round(one, s1, false), round(many, sn, false);  // warm-up
        for (int r = 0; r < rounds; ++r) round(one, s1, true), round(many, sn, true);
        const double n = double(images.size());
        for (auto [name, s] : {std::pair{std::string("1 thread"), &s1},
                               std::pair{std::to_string(many_n) + " threads", &sn}}) {
            double t = median(s->total);
            std::printf(
                "%-10s: %.1f ms a page (det %.1f, cls %.1f, rec %.1f), %.1f lines/s "
                "(%zu lines, %zu pages, median of %d rounds)\n",
                name.c_str(), t / n, median(s->det) / n, median(s->cls) / n, median(s->rec) / n,
                1000.0 * double(s->lines) / t, s->lines, images.size(), rounds);
        }
        std::printf("speed-up %.2fx\n", median(s1.total) / median(sn.total));
        return 0;
    } catch (const usage_error& e) {
        std::cerr << "bench_ocr: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "bench_ocr: " << e.what() << "\n";
        return 1;
    }
}
