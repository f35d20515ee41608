package dev.safetensors.s3;

import com.sun.net.httpserver.HttpServer;
import dev.safetensors.fixtures.QueryParameters;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback server that answers {@code ListObjectsV2} with generated keys ({@code p/k0000000.safetensors}...),
 * page by page, without storing them: a listing of a million entries costs it nothing. It can misbehave on purpose:
 * repeat a continuation token, or answer pages larger than asked.
 */
final class PagingS3Server implements AutoCloseable {
    enum Behaviour { WELL, REPEAT_TOKEN, OVERSIZED_PAGE, KEY_OUTSIDE_PREFIX }

    final AtomicLong requests = new AtomicLong();
    private final HttpServer server;
    private final long total;
    private final Behaviour behaviour;
    final S3Client client;

    PagingS3Server(long total, Behaviour behaviour) throws IOException {
        this.total = total;
        this.behaviour = behaviour;
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            requests.incrementAndGet();
            Map<String, String> q = QueryParameters.parse(exchange.getRequestURI().getRawQuery());
            int maxKeys = Integer.parseInt(q.getOrDefault("max-keys", "1000"));
            long start = q.containsKey("continuation-token") ? Long.parseLong(q.get("continuation-token")) : 0;
            byte[] body = page(q.getOrDefault("prefix", ""), start, maxKeys).getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/xml");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
        URI endpoint = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
        client = new S3ClientOptions(endpoint, true).clientBuilder().region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("k", "s"))).build();
    }

    private String page(String prefix, long start, int maxKeys) {
        int count = behaviour == Behaviour.OVERSIZED_PAGE ? maxKeys + 1 : maxKeys;
        long end = Math.min(total, start + count);
        StringBuilder xml = new StringBuilder(128 + (int) (end - start) * 160)
                .append("<?xml version=\"1.0\" encoding=\"UTF-8\"?><ListBucketResult>")
                .append("<Name>bucket</Name><Prefix>").append(prefix).append("</Prefix>")
                .append("<KeyCount>").append(end - start).append("</KeyCount><MaxKeys>").append(maxKeys)
                .append("</MaxKeys>");
        boolean truncated = end < total || behaviour == Behaviour.REPEAT_TOKEN;
        xml.append("<IsTruncated>").append(truncated).append("</IsTruncated>");
        for (long i = start; i < end; i++) {
            String key = behaviour == Behaviour.KEY_OUTSIDE_PREFIX ? "elsewhere/x.safetensors"
                    : prefix + String.format("k%07d.safetensors", i);
            xml.append("<Contents><Key>").append(key).append("</Key><Size>").append(80 + i % 7)
                    .append("</Size><ETag>\"e").append(i).append("\"</ETag>")
                    .append("<LastModified>2026-01-01T00:00:00.000Z</LastModified></Contents>");
        }
        if (truncated) {
            long next = behaviour == Behaviour.REPEAT_TOKEN ? start : end;
            xml.append("<NextContinuationToken>").append(next == 0 ? "0" : next).append("</NextContinuationToken>");
        }
        return xml.append("</ListBucketResult>").toString();
    }

    @Override
    public void close() {
        client.close();
        server.stop(0);
    }
}
