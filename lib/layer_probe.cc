// The source of the layer_* link probes (lib/CMakeLists.txt): each links one stage whole.
namespace abicheck {
void LayerProbe() {}
}  // namespace abicheck
