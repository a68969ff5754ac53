import Testing
@Test func placeholderRegistrationTests() { #expect(Bool(true)) }
