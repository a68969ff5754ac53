import Testing
@Test func placeholderStackerTests() { #expect(Bool(true)) }
