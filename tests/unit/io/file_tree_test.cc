// FileTree: a site-packages laid out from wheel members, resolved as the kernel resolves paths
// (docs/loader-model.md E10).
#include "lib/io/file_tree.h"

#include <filesystem>
#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/unit/test_util.h"

namespace abicheck {
namespace {

InputFile Named(const std::string& name) {
  return InputFile{name, name, std::make_shared<testing::VectorBlob>(std::vector<uint8_t>{1}),
                   nullptr};
}

TEST(FileTreeTest, LexicallyAbsolute) {
  EXPECT_EQ(LexicallyAbsolute("a/./b//c/../d", "/w"), "/w/a/b/d");
  EXPECT_EQ(LexicallyAbsolute("/x/../../y", "/w"), "/y");
  EXPECT_EQ(LexicallyAbsolute("", "/"), "/");
}

TEST(FileTreeTest, TorchsRpathReachesTheCudaWheelsLibraries) {
  FileTree tree("/c/torch.whl");
  ASSERT_TRUE(tree.Add("torch/lib/libc10.so", Named("torch.whl!torch/lib/libc10.so")));
  ASSERT_TRUE(
      tree.Add("nvidia/cu13/lib/libcudart.so.13", Named("rt.whl!nvidia/cu13/lib/libcudart.so.13")));
  const InputFile* rt = tree.File("/c/torch.whl/torch/lib/../../nvidia/cu13/lib/libcudart.so.13");
  ASSERT_NE(rt, nullptr);
  EXPECT_EQ(rt->name, "rt.whl!nvidia/cu13/lib/libcudart.so.13");        // for messages
  EXPECT_EQ(rt->path, "/c/torch.whl/nvidia/cu13/lib/libcudart.so.13");  // for $ORIGIN
  EXPECT_EQ(tree.Directory("/c/torch.whl/nvidia/cu13/lib/."), "/c/torch.whl/nvidia/cu13/lib");
  EXPECT_THAT(tree.FilesIn("/c/torch.whl/nvidia/cu13/lib"), ::testing::ElementsAre(rt));
}

// open() walks every component: one that does not exist ends the walk, even before a "..".
TEST(FileTreeTest, EveryComponentBeforeADotDotMustBeADirectory) {
  FileTree tree("/c/torch.whl");
  ASSERT_TRUE(tree.Add("torch/lib/libc10.so", Named("libc10.so")));
  ASSERT_TRUE(tree.Add("nvidia/lib/libx.so", Named("libx.so")));
  EXPECT_NE(tree.File("/c/torch.whl/torch/lib/../../nvidia/lib/libx.so"), nullptr);
  EXPECT_EQ(tree.File("/c/torch.whl/torch/nothing/../../nvidia/lib/libx.so"), nullptr);
  EXPECT_EQ(tree.File("/c/torch.whl/torch/lib/libc10.so/../libc10.so"), nullptr);  // a file
  EXPECT_EQ(tree.File("/c/torch.whl/../torch.whl/torch/lib/libc10.so"), nullptr);  // left it
  // Places looked up only before a ".." and at the end stand for every place on the way.
  EXPECT_EQ(tree.File("/c/torch.whl/torch/nothing/lib/libc10.so"), nullptr);
  EXPECT_EQ(tree.File("/c/torch.whl/torch/lib/libc10.so/x"), nullptr);
  EXPECT_EQ(tree.File("/c/torch.whl/torch/lib/nothing/deeper/../../libc10.so"), nullptr);
  EXPECT_NE(tree.File("/c/torch.whl/torch/lib/./../lib/../../torch/lib/libc10.so"), nullptr);
  EXPECT_EQ(tree.Directory("/c/torch.whl/torch/lib/.."), "/c/torch.whl/torch");
  EXPECT_EQ(tree.Directory("/c/torch.whl/torch/.."), "/c/torch.whl");
  EXPECT_EQ(tree.Directory("/c/torch.whl/.."), std::nullopt);
  EXPECT_EQ(tree.Directory("/c/torch.whl/torch/lib/libc10.so"), std::nullopt);
  EXPECT_TRUE(tree.Contains("/c/torch.whl"));
  EXPECT_TRUE(tree.Contains("/c/torch.whl/x"));
  EXPECT_FALSE(tree.Contains("/c/torch.whl2/x"));
}

TEST(FileTreeTest, OneFileAPlace) {
  FileTree tree("/t");
  EXPECT_TRUE(tree.Add("a/libx.so", Named("first")));
  EXPECT_FALSE(tree.Add("a/./libx.so", Named("second")));
  EXPECT_FALSE(tree.Add("a", Named("a directory already")));
  EXPECT_FALSE(tree.Add("../outside.so", Named("outside")));
  EXPECT_EQ(tree.File("/t/a/libx.so")->name, "first");
  EXPECT_EQ(tree.size(), 1u);
}

// An overlay (docs/loader-model.md E11) lies over a directory that exists: it answers for its
// own files, hides what pip removes, and leaves the rest to the disk (File is null, Hides false).
TEST(FileTreeTest, AnOverlayLeavesTheRestToTheDisk) {
  FileTree tree("/venv/site", FileTree::Kind::kOverlay);
  EXPECT_TRUE(tree.overlay());
  ASSERT_TRUE(tree.Add("torch/lib/libc10.so", Named("new c10")));
  tree.Hide("/venv/site/triton/libold.so");
  EXPECT_EQ(tree.File("/venv/site/torch/lib/libc10.so")->name, "new c10");
  // Through a directory only the disk has (torchvision/), lexically.
  EXPECT_EQ(tree.File("/venv/site/torchvision/../torch/lib/libc10.so")->name, "new c10");
  EXPECT_EQ(tree.File("/venv/site/torchvision/_C.so"), nullptr);
  EXPECT_FALSE(tree.Hides("/venv/site/torchvision/_C.so"));
  EXPECT_TRUE(tree.Hides("/venv/site/triton/libold.so"));
  EXPECT_TRUE(tree.Hides("/venv/site/torch/lib/../../triton/libold.so"));
  // A tree alone has nothing but its files.
  FileTree alone("/venv/site");
  ASSERT_TRUE(alone.Add("torch/lib/libc10.so", Named("c10")));
  EXPECT_EQ(alone.File("/venv/site/torchvision/../torch/lib/libc10.so"), nullptr);
}

// A relative path (an environment given as "venvs/x") is taken from the working directory, as
// the kernel takes it: the overlay still hides and answers for it.
TEST(FileTreeTest, RelativePathsAreFromTheWorkingDirectory) {
  const std::string cwd = std::filesystem::current_path().string();
  FileTree tree("venvs/x/site", FileTree::Kind::kOverlay);
  EXPECT_EQ(tree.root(), cwd + "/venvs/x/site");
  ASSERT_TRUE(tree.Add("torch/lib/libc10.so", Named("c10")));
  tree.Hide("venvs/x/site/old.so");
  EXPECT_TRUE(tree.Contains("venvs/x/site/torch"));
  EXPECT_NE(tree.File("venvs/x/site/torch/lib/libc10.so"), nullptr);
  EXPECT_TRUE(tree.Hides("venvs/x/site/old.so"));
  EXPECT_TRUE(tree.Hides(cwd + "/venvs/x/site/old.so"));
}

}  // namespace
}  // namespace abicheck
