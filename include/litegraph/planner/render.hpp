// Pictures and data of a plan, for the CLI and for people: an SVG of address
// by time (one panel per segment, tensors labelled, the LOAD line drawn).
// Not constexpr and not for firmware; the JSON form is in planner/json.hpp.
#pragma once

#include <algorithm>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "litegraph/planner/planner.hpp"

namespace litegraph::planner {

namespace detail {
inline std::string xml_escape(std::string_view s) {
    std::string out;
    for (char c : s) {
        switch (c) {
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '&':
                out += "&amp;";
                break;
            case '"':
                out += "&quot;";
                break;
            default:
                out += c;
        }
    }
    return out;
}
inline std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
    char buf[160];
    std::snprintf(buf, sizeof buf, f, a, b, c, d);
    return buf;
}
}  // namespace detail

/// Buffers planned inside one buffer of the plan (a patched stage's scratch:
/// its per-patch buffers), with lifetimes in steps of their own (the layers
/// of the stage) and offsets within that buffer.
struct inset {
    std::size_t holder = 0;  // index of the holding buffer
    std::string title;
    std::vector<buffer> parts;
    std::vector<std::size_t> offsets;
    std::vector<std::string> names;
};

namespace detail {
inline std::string part_rect(double x, double y, double w, double h, std::size_t i) {
    return fmt("<rect class=\"part\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" ", x, y,
               w, h) +
           fmt("fill=\"hsl(%.0f,70%%,60%%)\" stroke=\"#222\" stroke-width=\"0.3\"/>\n",
               static_cast<double>(i * 67 % 360));
}
}  // namespace detail

/// An SVG document: one panel per segment (fastest first), x = step, y =
/// address (0 at the bottom); each buffer a rectangle labelled with its name
/// (or b<index>); aliases and in-place buffers dashed over their parent; a
/// red dashed line at LOAD.  `names` may be empty or one per buffer.  Each
/// inset's parts are drawn inside their holding buffer's rectangle and again,
/// labelled, in a panel of their own below the segments (x = the inset's
/// steps, y = offset in the holding buffer).
inline std::string render_svg(std::span<const buffer> buffers, std::span<const segment> segments,
                              const plan& p, std::span<const std::string> names = {},
                              std::span<const inset> insets = {}) {
    const double width = 900, panel_h = 320, margin_l = 80, margin_r = 20, margin_t = 40;
    const double plot_w = width - margin_l - margin_r, plot_h = panel_h - margin_t - 30;
    int steps = 1;
    for (auto& b : buffers) steps = std::max(steps, b.last + 1);
    const std::size_t load = lower_bound(buffers);
    auto inset_steps = [](const inset& in) {
        int n = 1;
        for (auto& b : in.parts) n = std::max(n, b.last + 1);
        return n;
    };
    std::string svg = detail::fmt(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
        "font-family=\"sans-serif\" font-size=\"10\">\n",
        width,
        panel_h * static_cast<double>(std::max<std::size_t>(1, segments.size()) + insets.size()));
    for (std::size_t s = 0; s < segments.size(); ++s) {
        const double top = panel_h * static_cast<double>(s) + margin_t;
        std::size_t height = std::max<std::size_t>({p.used.size() > s ? p.used[s] : 0, load, 1});
        if (segments[s].capacity != unbounded) height = std::max(height, segments[s].capacity);
        const double sx = plot_w / steps, sy = plot_h / static_cast<double>(height);
        auto y_of = [&](std::size_t addr) { return top + plot_h - static_cast<double>(addr) * sy; };
        svg.append("<g class=\"segment\" data-name=\"")
            .append(detail::xml_escape(segments[s].name))
            .append("\">\n");
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">", margin_l, top - 12) +
               detail::xml_escape(segments[s].name) + ": " +
               std::to_string(p.used.size() > s ? p.used[s] : 0) + " bytes used" +
               (segments[s].capacity == unbounded ? std::string()
                                                  : " of " + std::to_string(segments[s].capacity)) +
               ", LOAD " + std::to_string(load) + "</text>\n";
        svg += detail::fmt(
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#888\"/>\n",
            margin_l, top, plot_w, plot_h);
        if (segments[s].capacity != unbounded)
            svg += detail::fmt(
                "<line class=\"capacity\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                "stroke=\"#000\"/>\n",
                margin_l, y_of(segments[s].capacity), margin_l + plot_w,
                y_of(segments[s].capacity));
        for (std::size_t i = 0; i < buffers.size(); ++i) {
            const auto& b = buffers[i];
            const auto& at = p.placements[i];
            if (at.segment != static_cast<int>(s) || b.size == 0) continue;
            const bool derived = b.alias_of >= 0 || b.in_place_of >= 0;
            const double x = margin_l + b.first * sx, w = (b.last - b.first + 1) * sx;
            const double y = y_of(at.offset + b.size), h = static_cast<double>(b.size) * sy;
            const unsigned hue = static_cast<unsigned>(i * 47 % 360);
            svg += detail::fmt(
                       "<rect class=\"buffer\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                       "height=\"%.2f\" ",
                       x, y, w, h) +
                   (derived ? std::string("fill=\"none\" stroke=\"#333\" stroke-dasharray=\"3,2\"")
                            : detail::fmt("fill=\"hsl(%.0f,60%%,75%%)\" stroke=\"#333\" "
                                          "stroke-width=\"0.5\"",
                                          hue)) +
                   "/>\n";
            std::string label = i < names.size() ? names[i] : std::string(1, 'b');
            if (i >= names.size()) label.append(std::to_string(i));
            svg += detail::fmt("<text x=\"%.2f\" y=\"%.2f\">", x + 2, y + std::min(h, 12.0) - 2) +
                   detail::xml_escape(label) + "</text>\n";
            for (const auto& in : insets) {
                if (in.holder != i) continue;
                const double isx = w / inset_steps(in);
                for (std::size_t k = 0; k < in.parts.size(); ++k) {
                    const auto& q = in.parts[k];
                    svg += detail::part_rect(
                        x + q.first * isx, y_of(at.offset + in.offsets[k] + q.size),
                        (q.last - q.first + 1) * isx, static_cast<double>(q.size) * sy, k);
                }
            }
        }
        svg += detail::fmt(
            "<line class=\"load\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"red\" "
            "stroke-dasharray=\"6,3\"/>\n",
            margin_l, y_of(load), margin_l + plot_w, y_of(load));
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\" fill=\"red\">LOAD</text>\n", 4,
                           y_of(load) + 3);
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\">0</text>\n", margin_l - 12, top + plot_h);
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\">step</text>\n", margin_l + plot_w - 24,
                           top + plot_h + 14);
        svg += "</g>\n";
    }
    for (std::size_t n = 0; n < insets.size(); ++n) {
        const auto& in = insets[n];
        const double top =
            panel_h * static_cast<double>(std::max<std::size_t>(1, segments.size()) + n) + margin_t;
        const std::size_t bytes = in.holder < buffers.size() ? buffers[in.holder].size : 0;
        std::size_t height = std::max<std::size_t>(bytes, 1);
        for (std::size_t k = 0; k < in.parts.size(); ++k)
            height = std::max(height, in.offsets[k] + in.parts[k].size);
        const int isteps = inset_steps(in);
        const double sx = plot_w / isteps, sy = plot_h / static_cast<double>(height);
        auto y_of = [&](std::size_t addr) { return top + plot_h - static_cast<double>(addr) * sy; };
        svg += "<g class=\"inset\">\n";
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\" font-size=\"13\">", margin_l, top - 12) +
               detail::xml_escape(in.title) + "</text>\n";
        svg += detail::fmt(
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
            "stroke=\"#888\"/>\n",
            margin_l, top, plot_w, plot_h);
        for (std::size_t k = 0; k < in.parts.size(); ++k) {
            const auto& q = in.parts[k];
            const double x = margin_l + q.first * sx, w = (q.last - q.first + 1) * sx;
            const double y = y_of(in.offsets[k] + q.size), h = static_cast<double>(q.size) * sy;
            svg += detail::part_rect(x, y, w, h, k);
            svg += detail::fmt("<text x=\"%.2f\" y=\"%.2f\">", x + 2, y + std::min(h, 12.0) - 2) +
                   detail::xml_escape(k < in.names.size() ? in.names[k] : std::string()) +
                   "</text>\n";
        }
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\">0</text>\n", margin_l - 12, top + plot_h);
        svg += detail::fmt("<text x=\"%.1f\" y=\"%.1f\">layer</text>\n", margin_l + plot_w - 30,
                           top + plot_h + 14);
        svg += "</g>\n";
    }
    svg += "</svg>\n";
    return svg;
}

}  // namespace litegraph::planner
