/**
 * What every remote {@link dev.safetensors.RandomAccessSource} needs to honour the SPI contract, written once:
 * {@link dev.safetensors.spi.RangeVerifier} checks a ranged response, {@link dev.safetensors.spi.VerifiedRangeChannel}
 * streams a body without ever taking more than asked, {@link dev.safetensors.spi.RequestCounter} counts the cost,
 * and {@link dev.safetensors.spi.SourceNames} keeps credentials out of names.
 */
package dev.safetensors.spi;
