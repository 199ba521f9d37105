package org.tenantlab.analysis;

import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.miscellaneous.ASCIIFoldingFilter;
import org.elasticsearch.common.settings.Settings;
import org.elasticsearch.env.Environment;
import org.elasticsearch.index.IndexSettings;
import org.elasticsearch.index.analysis.AbstractTokenFilterFactory;
import org.elasticsearch.index.analysis.NormalizingTokenFilterFactory;

/** `asciifolding` filter, usable in normalizers: preserve_original (false; never in a normalizer). */
final class AsciiFoldingTokenFilterFactory extends AbstractTokenFilterFactory implements NormalizingTokenFilterFactory {

    private final boolean preserveOriginal;

    AsciiFoldingTokenFilterFactory(IndexSettings indexSettings, Environment env, String name, Settings settings) {
        super(name);
        this.preserveOriginal = settings.getAsBoolean("preserve_original", false);
    }

    @Override
    public TokenStream create(TokenStream in) {
        return new ASCIIFoldingFilter(in, preserveOriginal);
    }

    @Override
    public TokenStream normalize(TokenStream in) {
        // a normalizer makes one term: the original beside the folded one would be two
        return new ASCIIFoldingFilter(in, false);
    }
}
