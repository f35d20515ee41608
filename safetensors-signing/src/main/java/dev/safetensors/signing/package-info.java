/**
 * Signing and verifying models in the OpenSSF Model Signing (OMS) v1.0 format.
 *
 * <p>A model is a set of files ({@link dev.safetensors.signing.ModelFiles}: a local folder, a single file or a
 * store prefix). Signing hashes them into a {@link dev.safetensors.signing.Manifest}, wraps it in an in-toto
 * statement, signs that statement's DSSE encoding and writes a Sigstore bundle (by convention {@code model.sig}).
 * Verifying checks the bundle's signature first and only then hashes the model again, reporting every file that
 * is missing, extra or changed in a {@link dev.safetensors.signing.VerificationResult}.
 *
 * <p>A valid signature proves that the holder of the signing key vouched for exactly these bytes; it says nothing
 * about whether the model is safe to load.
 */
package dev.safetensors.signing;
