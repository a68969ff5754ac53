import Testing
@Test func placeholderStackCLITests() { #expect(Bool(true)) }
