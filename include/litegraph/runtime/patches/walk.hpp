// Patched stages (runtime/patches.hpp, docs/patches.md): the one walk of a
// tiled stage.  For each patch, for each layer: the crops its inputs need,
// then the layer (a global pool: its row band into the output); then the
// patch into the output.  The runtime's patched stage runs this walk
// (instance.hpp) and the code generator writes it (firmware/generator.hpp),
// so the runtime and firmware take the same steps in the same order from the
// same geometry.
#pragma once

#include <cstddef>
#include <map>
#include <vector>

#include "litegraph/kernels/band_pool.hpp"
#include "litegraph/kernels/window_copy.hpp"
#include "litegraph/runtime/patches/geometry.hpp"
#include "litegraph/runtime/patches/stage.hpp"
#include "litegraph/runtime/patches/tiling.hpp"

namespace litegraph::runtime {

/// Where a step of the walk reads or writes: one of the stage's inputs (its
/// position in the stage's input list), a byte offset in the stage's scratch,
/// or the stage's output.
struct patch_place {
    enum class where { input, scratch, output };
    where at = where::scratch;
    std::size_t index = 0;  // input: its position; scratch: the byte offset

    static patch_place input(std::size_t i) { return {where::input, i}; }
    static patch_place scratch(std::size_t offset) { return {where::scratch, offset}; }
    static patch_place output() { return {where::output, 0}; }
};

/// Walks stage `d` tiled as `t`.  `inputs`: the stage's input vars (of the
/// block `d` describes) in the order of its input list; `ys` and `y_elem`:
/// the shape and element size of the stage's output.  The visitor has
///
///   void copy(const kernels::window_copy&, patch_place from, patch_place to);
///       // a crop of a layer's input, or the patch into the output
///   void layer(std::size_t patch, std::size_t layer,
///              const std::vector<patch_place>& inputs, patch_place output);
///   void band(std::size_t patch, std::size_t layer,
///             const kernels::band_pool_geometry&, patch_place from);
///       // a global pool's row band into the output
///   void end_patch(std::size_t patch);
template <class Visitor>
void walk_patches(const stage_desc& d, const stage_tiling& t, const std::vector<int>& inputs,
                  const shape_t& ys, std::size_t y_elem, Visitor&& visit) {
    std::map<int, std::size_t> external;  // var -> its position in the stage's inputs
    for (std::size_t i = 0; i < inputs.size(); ++i) external[inputs[i]] = i;
    const patch_region whole{0, ys[2], 0, ys[3]};
    const std::size_t n = t.patches.size();
    const bool reduce = d.layers.back().k == stage_layer::kind::reduce;
    std::vector<patch_place> at;
    for (std::size_t p = 0; p < n; ++p) {
        const auto& regions = t.regions[p];
        for (std::size_t i = 0; i < d.layers.size(); ++i) {
            const auto& l = d.layers[i];
            const auto& tl = t.tiles[p][i];
            at.assign(l.inputs.size(), patch_place{});
            for (std::size_t j = 0; j < l.inputs.size(); ++j) {
                const int v = l.inputs[j];
                const auto& s = d.shapes.at(v);
                patch_region have;
                if (auto it = external.find(v); it != external.end()) {
                    at[j] = patch_place::input(it->second);
                    have = {0, s[2], 0, s[3]};
                } else {
                    at[j] = patch_place::scratch(t.var_offset.at(v));
                    have = regions.at(v);
                }
                if (tl.crop[j]) {  // the layer reads less than its producer computed
                    const auto crop =
                        patch_place::scratch(static_cast<std::size_t>(t.crop_offset[i][j]));
                    visit.copy(patch_detail::window_copy_of(have, tl.in[j], tl.in[j],
                                                            patch_detail::plane_count(s),
                                                            size_of(d.types.at(v))),
                               at[j], crop);
                    at[j] = crop;
                }
            }
            if (l.k == stage_layer::kind::reduce)
                visit.band(p, i, band_pool_of(d, l, tl.in[0], p == 0, p + 1 == n), at[0]);
            else
                visit.layer(p, i, at, patch_place::scratch(t.var_offset.at(l.out)));
        }
        if (!reduce) {
            const auto& patch = t.patches[p];
            visit.copy(patch_detail::window_copy_of(patch, whole, patch,
                                                    patch_detail::plane_count(ys), y_elem),
                       patch_place::scratch(t.var_offset.at(d.output)), patch_place::output());
        }
        visit.end_patch(p);
    }
}

}  // namespace litegraph::runtime
