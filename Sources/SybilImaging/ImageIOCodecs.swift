#if !canImport(CPNG) && canImport(ImageIO)
    import CoreGraphics
    import Foundation
    import ImageIO

    /// PNG decoding and encoding through ImageIO (Apple platforms).
    public enum PNGCodec {
        /// Decodes a PNG to RGB, compositing any transparency onto white.
        public static func decodeRGBOnWhite(_ png: [UInt8]) throws(ImageConversionError) -> RGBImage {
            guard let source = CGImageSourceCreateWithData(Data(png) as CFData, nil),
                let image = CGImageSourceCreateImageAtIndex(source, 0, nil)
            else { throw ImageConversionError("cannot decode the PNG: ImageIO could not read it") }
            return try ImageIOSupport.rgbOnWhite(image)
        }

        /// Encodes 8-bit pixels as a PNG: RGBA when `alpha`, else RGB.
        public static func encode(
            pixels: [UInt8], width: Int, height: Int, alpha: Bool
        ) throws(ImageConversionError) -> [UInt8] {
            let info = alpha ? CGImageAlphaInfo.last : CGImageAlphaInfo.none
            let image = try ImageIOSupport.image(
                pixels, width: width, height: height, channels: alpha ? 4 : 3, alpha: info)
            return try ImageIOSupport.write(image, type: "public.png", properties: [:])
        }
    }

    /// JPEG encoding through ImageIO (Apple platforms).
    public enum JPEGCodec {
        /// Encodes RGB pixels at `quality` (0…1).
        public static func encode(_ image: RGBImage, quality: Double) throws(ImageConversionError) -> [UInt8] {
            let cgImage = try ImageIOSupport.image(
                image.pixels, width: image.width, height: image.height, channels: 3, alpha: .none)
            return try ImageIOSupport.write(
                cgImage, type: "public.jpeg", properties: [kCGImageDestinationLossyCompressionQuality: quality])
        }

        /// Decodes a JPEG to RGB. Refuses, before any pixel is decoded, an image of more than
        /// `maxPixels` pixels.
        public static func decode(_ jpeg: [UInt8], maxPixels: Int64) throws(ImageConversionError) -> RGBImage {
            guard let source = CGImageSourceCreateWithData(Data(jpeg) as CFData, nil),
                let properties = CGImageSourceCopyPropertiesAtIndex(source, 0, nil) as? [CFString: Any],
                let width = properties[kCGImagePropertyPixelWidth] as? Int,
                let height = properties[kCGImagePropertyPixelHeight] as? Int
            else { throw ImageConversionError("cannot decode the JPEG: ImageIO could not read it") }
            guard Int64(width) * Int64(height) <= maxPixels else {
                throw ImageConversionError(
                    "the JPEG has \(width) × \(height) pixels, more than the \(maxPixels) allowed")
            }
            guard let image = CGImageSourceCreateImageAtIndex(source, 0, nil) else {
                throw ImageConversionError("cannot decode the JPEG: ImageIO could not read it")
            }
            return try ImageIOSupport.rgbOnWhite(image)
        }
    }

    enum ImageIOSupport {
        /// Draws `image` onto white and returns its RGB pixels.
        static func rgbOnWhite(_ image: CGImage) throws(ImageConversionError) -> RGBImage {
            let width = image.width
            let height = image.height
            var rgbx = [UInt8](repeating: 255, count: width * height * 4)
            let drawn = rgbx.withUnsafeMutableBytes { buffer -> Bool in
                guard
                    let context = CGContext(
                        data: buffer.baseAddress, width: width, height: height, bitsPerComponent: 8,
                        bytesPerRow: width * 4, space: CGColorSpaceCreateDeviceRGB(),
                        bitmapInfo: CGImageAlphaInfo.noneSkipLast.rawValue)
                else { return false }
                let bounds = CGRect(x: 0, y: 0, width: width, height: height)
                context.setFillColor(red: 1, green: 1, blue: 1, alpha: 1)
                context.fill(bounds)
                context.draw(image, in: bounds)
                return true
            }
            guard drawn else { throw ImageConversionError("cannot decode the image: no drawing context") }
            var rgb = [UInt8]()
            rgb.reserveCapacity(width * height * 3)
            for offset in stride(from: 0, to: rgbx.count, by: 4) {
                rgb.append(contentsOf: rgbx[offset..<(offset + 3)])
            }
            return RGBImage(width: width, height: height, pixels: rgb)
        }

        static func image(
            _ pixels: [UInt8], width: Int, height: Int, channels: Int, alpha: CGImageAlphaInfo
        ) throws(ImageConversionError) -> CGImage {
            guard let provider = CGDataProvider(data: Data(pixels) as CFData),
                let image = CGImage(
                    width: width, height: height, bitsPerComponent: 8, bitsPerPixel: 8 * channels,
                    bytesPerRow: width * channels, space: CGColorSpaceCreateDeviceRGB(),
                    bitmapInfo: CGBitmapInfo(rawValue: alpha.rawValue), provider: provider, decode: nil,
                    shouldInterpolate: false, intent: .defaultIntent)
            else { throw ImageConversionError("cannot build an image from the pixels") }
            return image
        }

        static func write(
            _ image: CGImage, type: String, properties: [CFString: Any]
        ) throws(ImageConversionError) -> [UInt8] {
            let output = NSMutableData()
            guard let destination = CGImageDestinationCreateWithData(output as CFMutableData, type as CFString, 1, nil)
            else { throw ImageConversionError("cannot create a \(type) writer") }
            CGImageDestinationAddImage(destination, image, properties as CFDictionary)
            guard CGImageDestinationFinalize(destination) else {
                throw ImageConversionError("cannot encode the \(type) image")
            }
            return [UInt8](output as Data)
        }
    }
#endif
