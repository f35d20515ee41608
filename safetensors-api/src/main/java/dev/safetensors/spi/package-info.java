/**
 * What every remote {@link dev.safetensors.RandomAccessSource} shares, written once:
 * {@link dev.safetensors.spi.AbstractRangedSource} is the whole SPI contract (end of object, verification, version
 * pin, status mapping, retries, deadlines) over one backend call, {@link dev.safetensors.spi.PagedListing} the
 * same for a listing's pages, {@link dev.safetensors.spi.RetriedRequest} for any other request;
 * {@link dev.safetensors.spi.StatusMapping} is the one map from an error status to its exception for all three, and
 * {@link dev.safetensors.spi.RemotePolicy} says how they spend time, {@link dev.safetensors.spi.VerifiedRangeChannel}
 * streams a body without ever taking more than asked and releases the connection when it ends, {@link dev.safetensors.spi.RangeVerifier} checks a ranged response,
 * {@link dev.safetensors.spi.RequestCounter} counts the cost, and {@link dev.safetensors.spi.SourceNames} keeps
 * credentials out of names.
 */
package dev.safetensors.spi;
