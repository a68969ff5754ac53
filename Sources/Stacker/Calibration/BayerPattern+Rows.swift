extension BayerPattern {
    /// The column parity (0 even, 1 odd) of the green pixels of row `y`.
    func greenParity(row y: Int) -> Int { channels[(y & 1) << 1] == 1 ? 0 : 1 }

    /// The channel (0 red or 2 blue) of the pixels of row `y` that are not green.
    func otherColour(row y: Int) -> Int { channels[(y & 1) << 1 | (1 - greenParity(row: y))] }
}
