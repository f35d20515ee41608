package dev.safetensors.signing.internal;

import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A Sigstore trusted root ({@code trusted_root.json}): the certificate authorities that issue signing certificates
 * (Fulcio), the transparency logs (Rekor) and the timestamp authorities a keyless signature is checked against,
 * each trusted only within its validity period.
 *
 * @param certificateAuthorities the Fulcio CAs
 * @param transparencyLogs       the Rekor logs
 * @param timestampAuthorities   the RFC 3161 timestamp authorities
 */
public record TrustedRoot(List<Authority> certificateAuthorities, List<Log> transparencyLogs,
                          List<Authority> timestampAuthorities) {

    /**
     * When a key or CA of the root may be relied on: from {@code start}, until {@code end} if it has one.
     *
     * @param start the first instant
     * @param end   the last instant, if the period is closed
     */
    public record Validity(Instant start, Optional<Instant> end) {
        /**
         * @param time an instant
         * @return whether it lies within the period
         */
        public boolean contains(Instant time) {
            return !time.isBefore(start) && end.map(e -> !time.isAfter(e)).orElse(true);
        }
    }

    /**
     * A certificate authority or timestamp authority.
     *
     * @param uri      where it is served, for messages
     * @param chain    its certificate chain, the issuing (or timestamping) certificate first, the root last
     * @param validity when it may be relied on
     */
    public record Authority(String uri, List<X509Certificate> chain, Validity validity) {
    }

    /**
     * A transparency log.
     *
     * @param baseUrl  where it is served, for messages
     * @param logId    its key id: SHA-256 of its DER public key
     * @param key      its public key (ECDSA or Ed25519)
     * @param validity when entries it signed may be relied on
     */
    public record Log(String baseUrl, byte[] logId, PublicKey key, Validity validity) {
        /**
         * @param id a log id from an entry
         * @return whether it names this log
         */
        public boolean is(byte[] id) {
            return Arrays.equals(logId, id);
        }
    }
}
