import Foundation
import Testing
@testable import Stacker

/// The report's numbers read back to the very `Double` that was written.
@Suite("report numbers")
struct ReportNumberTests {
    @Test("every number reads back exactly, in valid JSON")
    func roundTrip() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var values: [Double] = [0, -0.0, 1, -3, 0.1, 1e-6, -2.5e-7, 1.0 / 3, 123456.789, 1e300, 5e-324, 4e15]
        for _ in 0..<2000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            values.append(Double(bitPattern: state >> 2) * (state & 1 == 0 ? 1 : -1))
        }
        for x in values where x.isFinite {
            let text = JSONText.number(x)
            // Valid JSON (Foundation's parser on Linux is not exact, so the
            // value is compared as Swift's correctly rounded parse reads it).
            #expect((try? JSONSerialization.jsonObject(with: Data("[\(text)]".utf8))) != nil, "\(text)")
            #expect(Double(text) == x, "\(x) written as \(text)")
        }
        #expect(JSONText.number(.nan) == "null")
        #expect(JSONText.number(12) == "12")
    }

    @Test("a homography's perspective terms are not rounded away")
    func perspectiveTerms() {
        let h = 1.234567891234e-6
        #expect(Double(JSONText.number(h)) == h)
    }
}
