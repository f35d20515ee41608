package dev.safetensors.http;

import dev.safetensors.spi.RangeAnswer;

/** A ranged answer with the redirect chain it came through, for the checks that need the final URL or the Hub's headers. */
final class HttpAnswer extends RangeAnswer {
    private final FinalResponse response;

    HttpAnswer(FinalResponse response) {
        super(response.status(), response::header, response.body(), () -> HttpTransport.discard(response.body()));
        this.response = response;
    }

    FinalResponse response() {
        return response;
    }
}
