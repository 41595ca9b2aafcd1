extension RGBImage {
    /// The size an image of `width` × `height` is drawn at so that neither side exceeds
    /// `longestSide` and it has at most `maxPixels` pixels, keeping the aspect ratio (each side
    /// at least 1). The size itself when it already fits; never larger.
    public static func fittingSize(
        width: Int, height: Int, longestSide: Int, maxPixels: Int64
    ) -> (width: Int, height: Int) {
        precondition(width > 0 && height > 0 && longestSide > 0 && maxPixels > 0, "sizes are positive")
        var fitted = (width: width, height: height)
        // The longest side exactly at the bound, the other scaled in integers (rounded down).
        if width >= height, width > longestSide {
            fitted = (longestSide, max(1, height * longestSide / width))
        } else if height > width, height > longestSide {
            fitted = (max(1, width * longestSide / height), longestSide)
        }
        let pixels = Int64(fitted.width) * Int64(fitted.height)
        if pixels > maxPixels {
            let scale = (Double(maxPixels) / Double(pixels)).squareRoot()
            fitted = (
                max(1, Int((Double(fitted.width) * scale).rounded(.down))),
                max(1, Int((Double(fitted.height) * scale).rounded(.down)))
            )
        }
        // Rounding down keeps both bounds; a side held at 1 pixel can still overshoot the budget.
        while Int64(fitted.width) * Int64(fitted.height) > maxPixels {
            if fitted.width >= fitted.height { fitted.width -= 1 } else { fitted.height -= 1 }
        }
        return fitted
    }

    /// The image reduced to `width` × `height` (each no larger than the image's) by averaging
    /// the source pixels each target pixel covers (a box filter), or the image itself when the
    /// size is unchanged.
    public func downscaled(toWidth targetWidth: Int, height targetHeight: Int) -> RGBImage {
        precondition(
            targetWidth > 0 && targetHeight > 0 && targetWidth <= width && targetHeight <= height,
            "a downscale target is positive and no larger than the image")
        if targetWidth == width && targetHeight == height { return self }
        // Source column x lands in target column x·tw/w, source row y in target row y·th/h. One
        // accumulator row of sums at a time, so the extra memory is one target row.
        var columnOf = [Int](repeating: 0, count: width)
        var columnCounts = [UInt64](repeating: 0, count: targetWidth)
        for x in 0..<width {
            columnOf[x] = x * targetWidth / width
            columnCounts[columnOf[x]] += 1
        }
        var output = [UInt8](repeating: 0, count: targetWidth * targetHeight * 3)
        var sums = [UInt64](repeating: 0, count: targetWidth * 3)
        var rowsInSum: UInt64 = 0
        pixels.withUnsafeBufferPointer { source in
            for y in 0..<height {
                let sourceRow = y * width * 3
                for x in 0..<width {
                    let into = columnOf[x] * 3
                    let from = sourceRow + x * 3
                    sums[into] += UInt64(source[from])
                    sums[into + 1] += UInt64(source[from + 1])
                    sums[into + 2] += UInt64(source[from + 2])
                }
                rowsInSum += 1
                let targetRow = y * targetHeight / height
                guard y + 1 == height || (y + 1) * targetHeight / height != targetRow else { continue }
                let rowStart = targetRow * targetWidth * 3
                for x in 0..<targetWidth {
                    let area = rowsInSum * columnCounts[x]
                    for channel in 0..<3 {
                        output[rowStart + x * 3 + channel] = UInt8((sums[x * 3 + channel] + area / 2) / area)
                    }
                }
                for index in sums.indices { sums[index] = 0 }
                rowsInSum = 0
            }
        }
        return RGBImage(width: targetWidth, height: targetHeight, pixels: output)
    }
}
