// hls.js's package exports its light build without types; it has the same API as the full build (less subtitles, alternate audio and DRM).
declare module 'hls.js/light' {
  export * from 'hls.js';
  export { default } from 'hls.js';
}
