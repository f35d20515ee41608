package dev.safetensors.signing.internal;

import dev.safetensors.signing.SigningException;
import dev.safetensors.signing.SigningException.Reason;

import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a keyless Sigstore signature needs beyond a signature that verifies with its certificate's key, following
 * the Sigstore client specification: every transparency-log entry and RFC 3161 timestamp the bundle carries must
 * verify, at least one log entry must, and together they must give at least one trusted time at which the
 * signing certificate chained to a Fulcio CA of the trusted root and was itself valid (a Fulcio certificate lives
 * ten minutes: the signature is trusted because the log or a timestamp authority saw it within them).
 */
public final class KeylessCheck {
    private KeylessCheck() {
    }

    /**
     * @param bundle      the bundle
     * @param certificate its signing certificate
     * @param signature   the envelope signature that verified with the certificate's key
     * @param root        the trusted root
     * @return the verified times, earliest first
     * @throws SigningException {@link Reason#TRANSPARENCY_LOG}, {@link Reason#TIMESTAMP} or
     *                          {@link Reason#UNTRUSTED_CERTIFICATE}
     */
    public static List<Instant> verify(Bundle bundle, X509Certificate certificate, byte[] signature,
                                       TrustedRoot root) throws SigningException {
        if (bundle.tlogEntries().isEmpty()) {
            throw new SigningException(Reason.TRANSPARENCY_LOG, "the keyless bundle has no transparency-log entry");
        }
        List<Instant> times = new ArrayList<>();
        for (Bundle.TlogEntry entry : bundle.tlogEntries()) {
            Optional<Instant> integrated = RekorEntries.verify(entry, root, bundle.payload(), signature, certificate);
            integrated.ifPresent(times::add);
        }
        for (byte[] timestamp : bundle.timestamps()) {
            times.add(Rfc3161Timestamps.verify(timestamp, signature, root));
        }
        if (times.isEmpty()) {
            throw new SigningException(Reason.TRANSPARENCY_LOG, "neither a signed entry timestamp nor an RFC 3161"
                    + " timestamp says when the signature was made");
        }
        times.sort(null);
        for (Instant time : times) {
            FulcioCertificates.requireTrusted(certificate, root, time);
        }
        return List.copyOf(times);
    }
}
