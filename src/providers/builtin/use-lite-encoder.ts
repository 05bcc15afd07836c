/**
 * The Universal Sentence Encoder lite's forward pass for one text, written out on tfjs ops with the weights of
 * the shipped graph model.
 *
 * Why: the converted graph is built for padded batches of sparse input. Run for one text it still executes
 * its 317 nodes through tfjs's graph executor, most of them shape bookkeeping (gathering, scattering and
 * masking the tokens of a batch), and for a short text that bookkeeping costs a large share of what the
 * matrix products cost (bench/README.md, "The built-in embedder"). Written out for one text there is no
 * padding either, so a batch embedded text by text costs no more than the graph's padded batch.
 *
 * The arithmetic is the graph's, step for step: token embeddings plus the sinusoidal timing signal, two
 * transformer layers (layer norm first, four heads, a projection of the residual where the width grows from
 * 256 to 512), the mean over tokens, a tanh layer and L2 normalisation. A test holds it to the graph's
 * vectors on short, long, clipped and out-of-vocabulary texts, so stored vectors stay comparable.
 */

/** The few tfjs values this file handles: tensors are opaque and passed back to tfjs. */
export interface Tensor {
  readonly shape: readonly number[];
  dataSync(): Float32Array | Int32Array | Uint8Array;
  dispose(): void;
}

type Rank2Shape = [number, number];

/** The tfjs operations the forward pass uses (from @energetic-ai/core, which ships no usable types). */
export interface TensorOps {
  tidy<T extends Tensor>(work: () => T): T;
  tensor1d(values: Int32Array | Float32Array, dtype: 'int32' | 'float32'): Tensor;
  tensor2d(values: Float32Array, shape: Rank2Shape): Tensor;
  reshape(x: Tensor, shape: number[]): Tensor;
  transpose(x: Tensor, perm: number[]): Tensor;
  gather(x: Tensor, indices: Tensor): Tensor;
  concat(tensors: Tensor[], axis: number): Tensor;
  split(x: Tensor, parts: number, axis: number): Tensor[];
  add(a: Tensor | number, b: Tensor | number): Tensor;
  sub(a: Tensor, b: Tensor): Tensor;
  mul(a: Tensor, b: Tensor | number): Tensor;
  div(a: Tensor, b: Tensor | number): Tensor;
  maximum(a: Tensor, b: number): Tensor;
  square(x: Tensor): Tensor;
  rsqrt(x: Tensor): Tensor;
  sin(x: Tensor): Tensor;
  cos(x: Tensor): Tensor;
  tanh(x: Tensor): Tensor;
  softmax(x: Tensor): Tensor;
  mean(x: Tensor, axis: number, keepDims: boolean): Tensor;
  sum(x: Tensor, axis: number, keepDims: boolean): Tensor;
  matMul(a: Tensor, b: Tensor, transposeA: boolean, transposeB: boolean): Tensor;
  readonly fused: { matMul(args: { a: Tensor; b: Tensor; bias: Tensor; activation?: 'relu' }): Tensor };
}

const OPS: readonly (keyof TensorOps)[] = [
  'tidy', 'tensor1d', 'tensor2d', 'reshape', 'transpose', 'gather', 'concat', 'split', 'add', 'sub', 'mul', 'div', 'maximum',
  'square', 'rsqrt', 'sin', 'cos', 'tanh', 'softmax', 'mean', 'sum', 'matMul',
];

/** The tfjs module as TensorOps, once every operation used here is checked to be there. */
export function tensorOps(module: unknown): TensorOps {
  const candidate = module as Record<string, unknown> & { fused?: { matMul?: unknown } };
  const missing = OPS.filter((name) => typeof candidate[name] !== 'function');
  if (typeof candidate.fused?.matMul !== 'function') missing.push('fused');
  if (missing.length > 0) throw new Error(`tfjs lacks the operations the encoder uses: ${missing.join(', ')}`);
  return module as TensorOps;
}

/** Texts are cut to their first 128 tokens, as the graph's ClipToMaxLength does. */
const MAX_TOKENS = 128;
/** The graph's layer-norm epsilon and its floor under the squared norm of the output. */
const LAYER_NORM_EPSILON = 1e-6;
const NORM_FLOOR = 1e-12;
const OUTPUT_DIMENSION = 512;
const HEADS = 4;

interface Layer {
  readonly width: number;
  readonly norm: { readonly scale: Tensor; readonly bias: Tensor };
  readonly qkv: Tensor;
  readonly qkvBias: Tensor;
  readonly output: Tensor;
  readonly outputBias: Tensor;
  /** Layer 0 widens its input from 256 to 512: the residual goes through a dense projection. */
  readonly residual: { readonly kernel: Tensor; readonly bias: Tensor } | null;
  readonly ffnNorm: { readonly scale: Tensor; readonly bias: Tensor };
  readonly ffnIn: Tensor;
  readonly ffnInBias: Tensor;
  readonly ffnOut: Tensor;
  readonly ffnOutBias: Tensor;
}

export interface UseLiteWeights {
  /** Tensors by graph node name, as GraphModel.weights holds them. */
  readonly [name: string]: readonly Tensor[] | undefined;
}

export interface UseLiteEncoder {
  /** The 512-d, L2-normalised embedding of one text given as its token ids; null for a text with no tokens. */
  embed(tokens: readonly number[]): Float32Array | null;
}

const ENCODE = 'module_apply_default/Encoder_en/KonaTransformer/Encode/';
const KERNELS = 'module/Encoder_en/KonaTransformer/Encode/';

export function createUseLiteEncoder(tf: TensorOps, weights: UseLiteWeights): UseLiteEncoder {
  const weight = (name: string, shape?: readonly number[]): Tensor => {
    const tensor = weights[name]?.[0];
    if (!tensor) throw new Error(`USE-lite weight missing: ${name}`);
    return shape ? tf.reshape(tensor, [...shape]) : tensor;
  };
  const layer = (index: 0 | 1, width: number): Layer => {
    const own = `${ENCODE}Layer_${index}/TransformerLayer/`;
    const stack = `${ENCODE}TransformerStack/Layer_${index}/TransformerLayer/`;
    const kernels = `${KERNELS}Layer_${index}/TransformerLayer/MultiheadAttention/`;
    return {
      width,
      norm: {
        scale: weight(`${own}layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`),
        bias: weight(`${own}layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`),
      },
      // The graph applies these as 1x1 convolutions; as matrices they are the same products.
      qkv: weight(`${kernels}qkv_transform_single/kernel/part_0`, [width, 3 * width]),
      qkvBias: weight(`${own}MultiheadAttention/qkv_transform_single/bias/ConcatPartitions/concat`),
      output: weight(`${kernels}output_transform_single/kernel/part_0`, [width, OUTPUT_DIMENSION]),
      outputBias: weight(`${own}MultiheadAttention/output_transform_single/bias/ConcatPartitions/concat`),
      residual:
        width === OUTPUT_DIMENSION
          ? null
          : { kernel: weight(`${own}dense/kernel/ConcatPartitions/concat`), bias: weight(`${own}dense/bias/ConcatPartitions/concat`) },
      ffnNorm: {
        scale: weight(`${own}FFN/layer_prepostprocess/layer_norm/layer_norm_scale/ConcatPartitions/concat`),
        bias: weight(`${own}FFN/layer_prepostprocess/layer_norm/layer_norm_bias/ConcatPartitions/concat`),
      },
      ffnIn: weight(`${stack}FFN/conv1/Tensordot/Reshape_1`),
      ffnInBias: weight(`${own}FFN/conv1/bias/ConcatPartitions/concat`),
      ffnOut: weight(`${stack}FFN/conv2/Tensordot/Reshape_1`),
      ffnOutBias: weight(`${own}FFN/conv2/bias/ConcatPartitions/concat`),
    };
  };
  const layers = [layer(0, 256), layer(1, OUTPUT_DIMENSION)] as const;
  const embeddings = weight('module/Embeddings_en');
  const inverseTimescales = weight(`${ENCODE}TransformerStack/Layer_0/AddTimingSignal/TimingSignal/ExpandDims_1`);
  const hidden = { kernel: weight('module/Encoder_en/hidden_layers/tanh_layer_0/weights'), bias: weight('module/Encoder_en/hidden_layers/tanh_layer_0/bias') };

  // Operation for operation as the graph computes it, so that rounding matches too.
  const layerNorm = (x: Tensor, norm: Layer['norm']): Tensor => {
    const centred = tf.sub(x, tf.mean(x, -1, true));
    const variance = tf.mean(tf.square(centred), -1, true);
    return tf.add(tf.mul(tf.mul(norm.scale, tf.rsqrt(tf.add(variance, LAYER_NORM_EPSILON))), centred), norm.bias);
  };
  const attention = (x: Tensor, l: Layer, length: number): Tensor => {
    const headWidth = l.width / HEADS;
    const [query, key, value] = tf.split(tf.fused.matMul({ a: x, b: l.qkv, bias: l.qkvBias }), 3, 1) as [Tensor, Tensor, Tensor];
    const heads = (t: Tensor) => tf.transpose(tf.reshape(t, [length, HEADS, headWidth]), [1, 0, 2]);
    const logits = tf.matMul(tf.mul(heads(query), 1 / Math.sqrt(headWidth)), heads(key), false, true);
    const mixed = tf.reshape(tf.transpose(tf.matMul(tf.softmax(logits), heads(value), false, false), [1, 0, 2]), [length, l.width]);
    return tf.fused.matMul({ a: mixed, b: l.output, bias: l.outputBias });
  };
  const transformerLayer = (x: Tensor, l: Layer, length: number): Tensor => {
    const residual = l.residual ? tf.fused.matMul({ a: x, b: l.residual.kernel, bias: l.residual.bias }) : x;
    const attended = tf.add(attention(layerNorm(x, l.norm), l, length), residual);
    const inner = tf.fused.matMul({ a: layerNorm(attended, l.ffnNorm), b: l.ffnIn, bias: l.ffnInBias, activation: 'relu' });
    return tf.add(tf.fused.matMul({ a: inner, b: l.ffnOut, bias: l.ffnOutBias }), attended);
  };

  return {
    embed(tokens) {
      const length = Math.min(tokens.length, MAX_TOKENS);
      if (length === 0) return null;
      const positions = new Float32Array(length);
      for (let i = 0; i < length; i++) positions[i] = i;
      const output = tf.tidy(() => {
        const tokenEmbeddings = tf.gather(embeddings, tf.tensor1d(Int32Array.from(tokens.slice(0, length)), 'int32'));
        const angles = tf.mul(tf.tensor2d(positions, [length, 1]), inverseTimescales);
        // The graph adds the timing signal to the gathered embeddings and that sum to the embeddings again.
        let x = tf.add(tokenEmbeddings, tf.add(tokenEmbeddings, tf.concat([tf.sin(angles), tf.cos(angles)], 1)));
        for (const l of layers) x = transformerLayer(x, l, length);
        const pooled = tf.div(tf.sum(x, 0, true), length);
        const activation = tf.tanh(tf.fused.matMul({ a: pooled, b: hidden.kernel, bias: hidden.bias }));
        return tf.mul(activation, tf.rsqrt(tf.maximum(tf.sum(tf.square(activation), 1, true), NORM_FLOOR)));
      });
      const vector = Float32Array.from(output.dataSync());
      output.dispose();
      return vector;
    },
  };
}
