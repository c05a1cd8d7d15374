import Foundation
import PrivateFiles
import Testing

/// `PathComponents` stands in for NSString's path methods, which the store modules no longer link.
@Suite struct PathComponentsTests {
    @Test func splitsAsNSStringDoes() {
        // Paths NSString handles (it traps on a relative name of one component, such as "a").
        for path in ["/", "/a", "/a/", "//a", "a/b", "a//b", "a/b/", "a/b//", "/a/b/c", "./x", "../x", "/a/./b", "/.", "x/.", "ä/ö", " /b"] {
            #expect(PathComponents.directory(of: path) == (path as NSString).deletingLastPathComponent, "\(path)")
            #expect(PathComponents.lastComponent(of: path) == (path as NSString).lastPathComponent, "\(path)")
        }
    }

    @Test func namesWithoutADirectory() {
        #expect(PathComponents.directory(of: "") == "")
        #expect(PathComponents.lastComponent(of: "") == "")
        #expect(PathComponents.directory(of: "cache.sqlite") == "")
        #expect(PathComponents.lastComponent(of: "cache.sqlite") == "cache.sqlite")
        #expect(PathComponents.directory(of: "dir/") == "")
        #expect(PathComponents.lastComponent(of: "dir/") == "dir")
        #expect(PathComponents.directory(of: "//") == "/")
        #expect(PathComponents.lastComponent(of: "//") == "/")
        #expect(PathComponents.directory(of: "///a///b///") == "///a")
    }
}
