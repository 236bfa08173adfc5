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

/// An SVG document: one panel per segment (fastest first), x = step, y =
/// address (0 at the bottom); each buffer a rectangle labelled with its name
/// (or b<index>); aliases and in-place buffers dashed over their parent; a
/// red dashed line at LOAD.  `names` may be empty or one per buffer.
inline std::string render_svg(std::span<const buffer> buffers, std::span<const segment> segments,
                              const plan& p, std::span<const std::string> names = {}) {
    const double width = 900, panel_h = 320, margin_l = 80, margin_r = 20, margin_t = 40;
    const double plot_w = width - margin_l - margin_r, plot_h = panel_h - margin_t - 30;
    int steps = 1;
    for (auto& b : buffers) steps = std::max(steps, b.last + 1);
    const std::size_t load = lower_bound(buffers);
    std::string svg = detail::fmt(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
        "font-family=\"sans-serif\" font-size=\"10\">\n",
        width, panel_h * std::max<std::size_t>(1, segments.size()));
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
    svg += "</svg>\n";
    return svg;
}

}  // namespace litegraph::planner
